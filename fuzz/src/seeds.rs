//! The seeds each target starts from, beside its saved corpus: built-in inputs, every vector
//! of the parser's corpus (`submit-core/tests/corpus/`: arguments, calls, model texts and
//! wrappers), and every recorded provider answer (`submit-agent/tests/recordings/`), framed as
//! the providers frame their streams.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The variable that asks a target's binary to write its seeds instead of fuzzing.
pub const WRITE_TO: &str = "SUBMIT_FUZZ_SEEDS";

/// Run when a target's binary starts: with [`WRITE_TO`] naming a directory, writes the seeds
/// of `target` there, one file each, and exits (`fuzz/run` does this before each run).
pub fn write_if_asked(target: &str) {
    let Some(dir) = std::env::var_os(WRITE_TO) else {
        return;
    };
    let dir = PathBuf::from(dir);
    let written = std::fs::create_dir_all(&dir).and_then(|()| {
        seeds(target)
            .iter()
            .enumerate()
            .try_for_each(|(n, seed)| std::fs::write(dir.join(format!("seed-{n:04}")), seed))
    });
    match written {
        Ok(()) => std::process::exit(0),
        Err(error) => {
            eprintln!(
                "cannot write the seeds of {target} to {}: {error}",
                dir.display()
            );
            std::process::exit(1)
        }
    }
}

/// The seeds of `target` (one of [`crate::TARGETS`]).
pub fn seeds(target: &str) -> Vec<Vec<u8>> {
    match target {
        "handle" => arguments().into_iter().map(String::into_bytes).collect(),
        "tag" => tags().into_iter().map(String::into_bytes).collect(),
        "stream" => streams(),
        "triage" => triage(),
        "mcp" => mcp(),
        "text" => texts().into_iter().map(String::into_bytes).collect(),
        _ => Vec::new(),
    }
}

/// Argument texts and calls: built-in, and from the parser's corpus.
fn arguments() -> Vec<String> {
    let obj = r#"{"summary":"all good"}"#;
    let mut seeds: Vec<String> = vec![
        json!({"reasoning": "done", "analysis": {"summary": "all good"}}).to_string(),
        json!({"reasoning": "done", "analysis": format!("{obj}</analysis>\n</invoke>")}).to_string(),
        json!({"reasoning": format!("p</reasoning>\n<parameter name=\"analysis\">{obj}")}).to_string(),
        json!({"reasoning": format!("p\", \"analysis\": {obj}}}"), "analysis": null}).to_string(),
        json!({"reasoning": format!("{{\"reasoning\":\"r\",\"analysis\":{obj}}}")}).to_string(),
        json!({"reasoning": "r", "summary": "s", "blocked": true, "tags": ["a"]}).to_string(),
        json!({"type": "tool_use", "id": "t", "name": "submit_result",
               "input": {"reasoning": "r", "analysis": {"summary": "s"}}}).to_string(),
        json!({"functionCall": {"name": "submit_result", "args": {"reasoning": "r", "analysis": obj}}})
            .to_string(),
        format!("{}}}\n</invoke>", json!({"reasoning": "r", "analysis": {"summary": "s"}})),
        Value::from(json!({"reasoning": "r", "analysis": {"summary": "s"}}).to_string()).to_string(),
        format!("```json\n{}\n```", json!({"reasoning": "r", "analysis": {"summary": "s"}})),
        json!({"arguments": {"reasoning": "r", "analysis": {"summary": "s"}}}).to_string(),
        r#"{"reasoning":"r","analysis":{"summary":"a","summary":"b"}}"#.to_owned(),
        json!({"reasoning": "r", "summary": "s</parameter>\n</invoke>", "blocked": "true", "tags": "[\"a\"]"})
            .to_string(),
        json!({"reasoning": "r</parameter>\n<parameter name=\"summary\">s"}).to_string(),
    ];
    for vector in submit_test_kit::corpus::vectors().unwrap_or_default() {
        if let Some(arguments) = vector.get("arguments") {
            seeds.push(arguments.to_string());
        }
        if let Some(Value::String(text)) = vector.get("arguments_text") {
            seeds.push(text.clone());
        }
        if let Some(call) = vector.get("call") {
            seeds.push(call.to_string());
        }
    }
    seeds
}

/// Model texts: a clean call of the submit tool in each of the nine forms (and of
/// `get_weather`), and every text and wrapper of the parser's corpus.
fn texts() -> Vec<String> {
    let arguments =
        json!({"reasoning": "r", "analysis": {"summary": "s", "tags": ["a"]}}).to_string();
    let weather = r#"{"city": "Oslo", "days": 2}"#;
    let mut seeds = Vec::new();
    for (tool, arguments) in [
        ("submit_result", arguments.as_str()),
        ("get_weather", weather),
    ] {
        seeds.extend([
            format!("Checked.\n<tool_call>\n{{\"name\": \"{tool}\", \"arguments\": {arguments}}}\n</tool_call><|im_end|>"),
            format!("<tool_call>\n{{\"name\": \"{tool}\", \"arguments\": {}}}\n</tool_call>", Value::from(arguments)),
            format!("[TOOL_CALLS]{tool}[ARGS]{arguments}</s>"),
            format!("[TOOL_CALLS]{tool}[CALL_ID]a1b2c3d4e[ARGS]{arguments}"),
            format!("[TOOL_CALLS][{{\"name\": \"{tool}\", \"arguments\": {arguments}, \"id\": \"x\"}}]"),
            format!("<|python_tag|>{{\"name\": \"{tool}\", \"parameters\": {arguments}}}<|eom_id|>"),
            format!("```json\n{{\"type\": \"function\", \"name\": \"{tool}\", \"parameters\": {arguments}}}\n```"),
            format!("Plan.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>{tool}<｜tool▁sep｜>{arguments}<｜tool▁call▁end｜><｜tool▁calls▁end｜><｜end▁of▁sentence｜>"),
            format!("<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>{tool}\n```json\n{arguments}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>"),
            format!("<|tool_calls_section_begin|> <|tool_call_begin|> functions.{tool}:0 <|tool_call_argument_begin|> {arguments} <|tool_call_end|> <|tool_calls_section_end|>"),
            format!("<|channel|>analysis<|message|>Plan.<|end|><|start|>assistant<|channel|>commentary to=functions.{tool} <|constrain|>json<|message|>{arguments}<|call|>"),
        ]);
    }
    seeds.extend([
        "<tool_call>\n<function=submit_result>\n<parameter=reasoning>\nr\n</parameter>\n<parameter=analysis>\n{\"summary\": \"s\"}\n</parameter>\n</function>\n</tool_call>".to_owned(),
        "<function=get_weather>\n<parameter=city>\nOslo\n</parameter>\n<parameter=days>\n2\n</parameter>\n</function>".to_owned(),
        "<tool_call>submit_result\n<arg_key>reasoning</arg_key>\n<arg_value>r</arg_value>\n<arg_key>analysis</arg_key>\n<arg_value>{\"summary\": \"s\"}</arg_value>\n</tool_call>".to_owned(),
        "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Oslo</arg_value><arg_key>days</arg_key><arg_value>2</arg_value></tool_call>".to_owned(),
        "[submit_result(reasoning='it\\'s', analysis={'summary': \"s\", 'blocked': None, 'tags': ['a', \"b\"]})]".to_owned(),
        "Malformed function call: print(default_api.submit_result(reasoning='r', analysis={'summary': 's'}))".to_owned(),
        "[get_weather(city='Oslo', days=+2), get_time()]".to_owned(),
        "get_weather(city=\"Oslo\", days=2)\n".to_owned(),
        json!({"content": "<tool_call>{\"name\": \"submit_result\", \"arguments\": {}}</tool_call>"}).to_string(),
        json!({"tool_uses": [{"recipient_name": "functions.submit_result",
               "parameters": {"reasoning": "r", "analysis": {"summary": "s"}}},
               {"recipient_name": "functions.get_weather", "parameters": {"city": "Oslo"}}]}).to_string(),
    ]);
    for vector in submit_test_kit::corpus::vectors().unwrap_or_default() {
        if let Some(Value::String(text)) = vector.get("text") {
            seeds.push(text.clone());
        }
        match vector.get("wrapper") {
            Some(Value::String(text)) => seeds.push(text.clone()),
            Some(wrapper) => seeds.push(wrapper.to_string()),
            None => {}
        }
    }
    seeds
}

fn tags() -> Vec<String> {
    [
        "name=submit_decision,payloadDescription=Escalate\\, block\\, or approve.,flat",
        "name=x,payload=analysis,omit_reasoning=true,success=ok",
        "omitReasoning,payload=reasoning",
        "nmae=x,flat=maybe,name=,payload=a b",
        "description=a\\\\,b,name=n\\",
        "",
        " , ,flat=FALSE, omit_reasoning ",
    ]
    .map(str::to_owned)
    .to_vec()
}

/// Each recorded answer, streamed or not, behind its provider's byte and a piece size.
fn streams() -> Vec<Vec<u8>> {
    let mut seeds = Vec::new();
    for (index, dir) in ["claude", "gemini", "openai_chat", "openai_responses"]
        .iter()
        .enumerate()
    {
        let Ok(entries) = std::fs::read_dir(root().join("submit-agent/tests/recordings").join(dir))
        else {
            continue;
        };
        for entry in entries.flatten() {
            for body in bodies(&entry.path(), dir) {
                let mut seed = vec![index as u8, 7];
                seed.extend_from_slice(&body);
                seeds.push(seed);
            }
        }
    }
    seeds
}

/// The answers a recording holds, each framed as its provider sends it.
fn bodies(path: &Path, dir: &str) -> Vec<Vec<u8>> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Vec::new();
    };
    let name = path.to_string_lossy();
    if name.ends_with(".yaml") {
        let Ok(cassette) = serde_norway::from_str::<Value>(&text) else {
            return Vec::new();
        };
        return cassette["interactions"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|interaction| {
                let response = &interaction["response"];
                match response.pointer("/body/string") {
                    Some(Value::String(body)) => Some(body.clone().into_bytes()),
                    _ => serde_json::to_vec(&response["parsed_body"]).ok(),
                }
            })
            .collect();
    }
    if name.ends_with(".chunks.txt") {
        let named = dir == "claude" || dir == "openai_responses";
        let mut body = String::new();
        for line in text.lines().filter(|line| !line.trim().is_empty()) {
            let kind = serde_json::from_str::<Value>(line)
                .ok()
                .and_then(|event| event["type"].as_str().map(str::to_owned));
            if let (true, Some(kind)) = (named, kind) {
                body.push_str(&format!("event: {kind}\n"));
            }
            body.push_str(&format!("data: {line}\n\n"));
        }
        if dir == "openai_chat" {
            body.push_str("data: [DONE]\n\n");
        }
        return vec![body.into_bytes()];
    }
    vec![text.into_bytes()]
}

/// Files of calls: the corpus's calls a line, behind a provider's byte, and mixed junk.
fn triage() -> Vec<Vec<u8>> {
    let calls: Vec<String> = arguments()
        .into_iter()
        .filter(|text| serde_json::from_str::<Value>(text).is_ok())
        .collect();
    let mut seeds = Vec::new();
    for provider in 0..4u8 {
        let mut file = vec![provider];
        for call in calls.iter().skip(usize::from(provider)).step_by(4).take(40) {
            file.extend_from_slice(call.as_bytes());
            file.push(b'\n');
        }
        seeds.push(file);
    }
    seeds
        .push(b"\x00\xEF\xBB\xBF{\"type\":\"tool_use\"}\r\n\n   \nnot json\n\xff\xfe\n{}".to_vec());
    // One line of each format `triage` tells apart: batch entries, responses, conversations.
    let chat = json!({"type": "function", "function": {"name": "submit_result",
                      "arguments": "{\"reasoning\":\"r\",\"result\":\"{\\\"summary\\\":\\\"s\\\"}</invoke>\"}"}});
    let tool_use = json!({"type": "tool_use", "name": "submit_result",
                          "input": {"reasoning": "r", "result": {"summary": "s"}}});
    let lines = [
        json!({"custom_id": "a", "response": {"status_code": 200,
               "body": {"choices": [{"message": {"tool_calls": [chat.clone(), chat.clone()]}}]}}}),
        json!({"custom_id": "b", "response": {"status_code": 500, "body": {}}}),
        json!({"custom_id": "c", "response": null, "error": {"code": "x"}}),
        json!({"custom_id": "d", "result": {"type": "succeeded",
               "message": {"type": "message", "content": [tool_use.clone()]}}}),
        json!({"custom_id": "e", "result": {"type": "expired"}}),
        json!({"object": "response", "output": [{"type": "function_call", "name": "submit_result",
               "arguments": "{}"}]}),
        json!({"candidates": [{"content": {"parts": [{"functionCall": {"name": "submit_result",
               "args": {"reasoning": "r", "result": {"summary": "s"}}}}]}}]}),
        json!([{"role": "user", "content": "go"}, {"role": "assistant", "tool_calls": [chat]},
               {"role": "assistant", "content": [tool_use]}]),
        json!({"model": "m", "messages": [{"role": "user", "content": "go"}]}),
    ];
    let mut file = vec![0u8];
    for line in lines {
        file.extend_from_slice(line.to_string().as_bytes());
        file.push(b'\n');
    }
    seeds.push(file);
    seeds
}

/// MCP messages a host sends, good and bad, one a line.
fn mcp() -> Vec<Vec<u8>> {
    let call = |arguments: Value| {
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
               "params": {"name": "submit_result", "arguments": arguments}})
        .to_string()
    };
    [
        call(json!({"reasoning": "r", "result": {"summary": "s"}})),
        call(json!({"reasoning": "r", "result": "{\"summary\": \"s\"}"})),
        call(json!({"reasoning": "r", "result": "{\"summary\": \"s\"} and more"})),
        format!(
            "{}\n{}",
            call(json!({"reasoning": "r", "result": {"summary": "s"}})),
            call(json!({"reasoning": "again", "result": {"summary": "t"}}))
        ),
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":5}}"#.to_owned(),
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"other"}}"#.to_owned(),
        r#"{"jsonrpc":"2.0","id":4,"method":"resources/list"}"#.to_owned(),
        r#"{"jsonrpc":"2.0","id":5,"method":"ping"}"#.to_owned(),
        r#"[{"jsonrpc":"2.0","id":6,"method":"tools/list"}]"#.to_owned(),
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#
            .to_owned(),
        "not json".to_owned(),
    ]
    .map(String::into_bytes)
    .to_vec()
}
