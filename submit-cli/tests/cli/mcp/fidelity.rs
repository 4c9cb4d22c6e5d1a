//! What the server lists and answers, against the MCP specification: the `inputSchema` keeps
//! the payload schema's dialect, definitions and references; an accepted result carries its
//! structured content and that content's JSON as text.

use serde_json::{json, Value};

use super::{clean_arguments, scratch, stdio_server, submit, text};

#[tokio::test]
async fn listed_input_schema_keeps_the_dialect_definitions_and_references_of_the_schema() {
    let dir = scratch("fidelity-draft-07");
    let schema = dir.join("pair.json");
    // Array-form `items` is a tuple in draft-07 and an error in 2020-12, the dialect a host
    // assumes when `$schema` is absent.
    let document = json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {
            "pair": {"type": "array", "items": [{"type": "string"}, {"$ref": "#/definitions/count"}],
                     "additionalItems": false},
            "same": {"$ref": "#/properties/pair"}
        },
        "required": ["pair"],
        "definitions": {"count": {"type": "integer", "minimum": 0}}
    });
    std::fs::write(&schema, document.to_string()).unwrap();
    let schema = schema.display().to_string();
    let server = stdio_server(&["--schema", &schema]).await;
    let tools = server.client.list_all_tools().await.unwrap();
    let listed = Value::Object((*tools[0].input_schema).clone());
    assert_eq!(
        listed,
        json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {
                "reasoning": listed["properties"]["reasoning"],
                "result": {
                    "description": "Structured result payload.",
                    "type": "object",
                    "properties": {
                        "pair": {"type": "array",
                                 "items": [{"type": "string"}, {"$ref": "#/definitions/count"}],
                                 "additionalItems": false},
                        "same": {"$ref": "#/properties/result/properties/pair"}
                    },
                    "required": ["pair"]
                }
            },
            "required": ["reasoning", "result"],
            "definitions": {"count": {"type": "integer", "minimum": 0}}
        })
    );
    assert_eq!(listed["properties"]["reasoning"]["type"], "string");
    // The tuple is read as draft-07 reads it: a count that is not an integer is a payload
    // error.
    let arguments = json!({"reasoning": "r", "result": {"pair": ["a", "b"]}});
    let rejected = submit(&server.client, arguments).await;
    assert_eq!(rejected.is_error, Some(true), "{rejected:?}");
    server.close().await;
}

#[tokio::test]
async fn accepted_result_carries_structured_content_and_its_json_as_the_text_block() {
    let server = stdio_server(&["--schema", &super::schema()]).await;
    let accepted = submit(&server.client, clean_arguments()).await;
    assert_eq!(accepted.is_error, Some(false));
    let structured = accepted.structured_content.clone().unwrap();
    assert_eq!(
        structured,
        json!({"success": true, "message": "Result submitted successfully."})
    );
    let text: Value = serde_json::from_str(text(&accepted)).unwrap();
    assert_eq!(text, structured);
    server.close().await;
}
