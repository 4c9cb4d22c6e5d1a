//! The invented `multi_tool_use.parallel` wrapper, read at step *Where the call was found* of the
//! parsing rules: a call of a tool that does not exist, whose arguments list the calls the model
//! meant, `{"tool_uses": [{"recipient_name": "functions.<name>", "parameters": {…}}, …]}`.
//!
//! The wrapper is read whole or not at all: an entry not written this way declines it, and so does
//! a member named twice in the wrapper or in an entry. An entry's parameters that name a member
//! twice are the named tool's to judge: the submit tool's parser names the member; for any other
//! tool, whose value would lose one of them silently, they decline the wrapper.

use serde_json::value::RawValue;
use serde_json::Value;

use super::arguments::object_members;
use super::members::Members;
use super::Arguments;

/// The name models invent for a wrapper around parallel tool calls.
///
/// ```
/// # extern crate submit_core as submit_result;
/// assert_eq!(submit_result::PARALLEL_WRAPPER, "multi_tool_use.parallel");
/// ```
pub const PARALLEL_WRAPPER: &str = "multi_tool_use.parallel";

/// What the model reads when the wrapper is declined.
pub(crate) const NOT_A_TOOL: &str =
    "multi_tool_use.parallel is not a tool; call each tool directly";

/// How an entry names its tool.
const RECIPIENT: &str = "functions.";

/// One entry of a `multi_tool_use.parallel` wrapper: the tool named after `functions.`, and the
/// parameters object to call it with.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct ParallelEntry {
    /// The tool's name, without `functions.`.
    pub name: String,
    /// The call's arguments, a JSON object.
    pub parameters: Value,
    /// The parameters' JSON text, where the wrapper arrived as text.
    text: Option<String>,
}

impl ParallelEntry {
    /// The entry's arguments as the parser reads them: the text they arrived as, where they
    /// arrived as text.
    pub(crate) fn arguments(&self) -> Arguments<'_> {
        match &self.text {
            Some(text) => Arguments::Text(text),
            None => Arguments::Value(&self.parameters),
        }
    }
}

/// Reads the arguments of a `multi_tool_use.parallel` call into its entries, in order, for a
/// reader whose own tool is `tool`.
///
/// Arguments that are not `{"tool_uses": [{"recipient_name": "functions.<name>",
/// "parameters": {…}}, …]}` (argument text, a value, or a string holding the text), with each
/// member of the wrapper and of its entries once, give the message the model should read for
/// the wrapper's call: `multi_tool_use.parallel is not a tool; call each tool directly`. The
/// parameters of an entry naming `tool` keep their text for its parser, which names a member
/// written twice; those of an entry naming another tool must name each member once.
///
/// ```
/// # extern crate submit_core as submit_result;
/// use serde_json::json;
/// use submit_result::{parallel_entries, Arguments};
///
/// let arguments = r#"{"tool_uses": [
///     {"recipient_name": "functions.get_weather", "parameters": {"city": "Oslo"}},
///     {"recipient_name": "functions.submit_result", "parameters": {"reasoning": "done"}}]}"#;
/// let entries = parallel_entries(Arguments::Text(arguments), "submit_result").unwrap();
/// assert_eq!(entries[0].name, "get_weather");
/// assert_eq!(entries[1].parameters, json!({"reasoning": "done"}));
///
/// let broken = json!({"tool_uses": [{"recipient_name": "get_weather", "parameters": {}}]});
/// assert_eq!(
///     parallel_entries(Arguments::Value(&broken), "submit_result").unwrap_err(),
///     "multi_tool_use.parallel is not a tool; call each tool directly"
/// );
/// ```
pub fn parallel_entries(
    arguments: Arguments<'_>,
    tool: &str,
) -> Result<Vec<ParallelEntry>, String> {
    let entries = match arguments {
        Arguments::Text(text) => from_text(text, tool),
        Arguments::Value(Value::String(text)) => from_text(text, tool),
        Arguments::Value(value) => from_value(value),
        Arguments::Missing => None,
    };
    entries.ok_or_else(|| NOT_A_TOOL.to_owned())
}

/// The tool an entry names: `functions.<name>` with a name.
fn recipient(name: &str) -> Option<&str> {
    name.strip_prefix(RECIPIENT).filter(|name| !name.is_empty())
}

fn from_value(value: &Value) -> Option<Vec<ParallelEntry>> {
    let wrapper = value.as_object().filter(|wrapper| wrapper.len() == 1)?;
    wrapper
        .get("tool_uses")?
        .as_array()?
        .iter()
        .map(|entry| {
            let entry = entry.as_object().filter(|entry| entry.len() == 2)?;
            let name = recipient(entry.get("recipient_name")?.as_str()?)?;
            let parameters = entry.get("parameters").filter(|p| p.is_object())?;
            Some(ParallelEntry {
                name: name.to_owned(),
                parameters: parameters.clone(),
                text: None,
            })
        })
        .collect()
}

/// One JSON object of text, its members each once.
fn object(text: &str) -> Option<Members<'_>> {
    object_members(text)
}

fn from_text(text: &str, tool: &str) -> Option<Vec<ParallelEntry>> {
    let wrapper = object(text).filter(|wrapper| wrapper.list.len() == 1)?;
    let uses = wrapper.get("tool_uses")?;
    let entries = serde_json::from_str::<Vec<&RawValue>>(uses.get()).ok()?;
    entries
        .into_iter()
        .map(|entry| {
            let entry = object(entry.get()).filter(|entry| entry.list.len() == 2)?;
            let name = serde_json::from_str::<String>(entry.get("recipient_name")?.get()).ok()?;
            let name = recipient(&name)?;
            let parameters = entry.get("parameters")?.get();
            // Each parameter once, but in the tool's own entry, whose parser names a repeat.
            if name != tool {
                object(parameters)?;
            }
            let value: Value = serde_json::from_str(parameters).ok()?;
            value.is_object().then(|| ParallelEntry {
                name: name.to_owned(),
                parameters: value,
                text: Some(parameters.to_owned()),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn entries(text: &str) -> Result<Vec<(String, Value)>, String> {
        let pairs = |entries: Vec<ParallelEntry>| -> Vec<(String, Value)> {
            entries
                .into_iter()
                .map(|entry| (entry.name, entry.parameters))
                .collect()
        };
        let from_text = pairs(parallel_entries(Arguments::Text(text), "submit_result")?);
        let value: Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
        let from_value = pairs(parallel_entries(Arguments::Value(&value), "submit_result")?);
        assert_eq!(from_text, from_value, "text and value agree: {text}");
        Ok(from_text)
    }

    #[test]
    fn a_wrapper_lists_its_entries_in_order() {
        let text = r#"{"tool_uses": [
            {"recipient_name": "functions.a", "parameters": {"x": 1}},
            {"parameters": {}, "recipient_name": "functions.submit_result"}]}"#;
        assert_eq!(
            entries(text).unwrap(),
            vec![
                ("a".to_owned(), json!({"x": 1})),
                ("submit_result".to_owned(), json!({}))
            ]
        );
        assert_eq!(entries(r#"{"tool_uses": []}"#).unwrap(), vec![]);
    }

    #[test]
    fn a_string_holding_the_wrapper_is_read_as_its_text() {
        let value =
            json!(r#"{"tool_uses": [{"recipient_name": "functions.a", "parameters": {}}]}"#);
        let read = parallel_entries(Arguments::Value(&value), "submit_result").unwrap();
        assert_eq!(read[0].name, "a");
    }

    #[test]
    fn an_entry_not_of_the_shape_declines_the_wrapper() {
        for text in [
            r#"{"tool_uses": [{"recipient_name": "a", "parameters": {}}]}"#,
            r#"{"tool_uses": [{"recipient_name": "functions.", "parameters": {}}]}"#,
            r#"{"tool_uses": [{"recipient_name": "functions.a", "parameters": "{}"}]}"#,
            r#"{"tool_uses": [{"recipient_name": "functions.a"}]}"#,
            r#"{"tool_uses": [{"recipient_name": "functions.a", "parameters": {}, "id": 1}]}"#,
            r#"{"tool_uses": [{"recipient_name": 5, "parameters": {}}]}"#,
            r#"{"tool_uses": [[]]}"#,
            r#"{"tool_uses": {}}"#,
            r#"{"tool_uses": [], "other": 1}"#,
            r#"{}"#,
            r#"[]"#,
            r#"null"#,
        ] {
            assert_eq!(
                entries(text).unwrap_err(),
                "multi_tool_use.parallel is not a tool; call each tool directly",
                "{text}"
            );
        }
        for arguments in [
            Arguments::Missing,
            Arguments::Text("{\"tool_uses\": ["),
            Arguments::Text(""),
        ] {
            assert!(parallel_entries(arguments, "submit_result").is_err());
        }
    }

    #[test]
    fn a_member_named_twice_in_text_declines_the_wrapper() {
        for text in [
            r#"{"tool_uses": [], "tool_uses": []}"#,
            r#"{"tool_uses": [{"recipient_name": "functions.a", "recipient_name": "functions.b", "parameters": {}}]}"#,
            r#"{"tool_uses": [{"recipient_name": "functions.a", "parameters": {"x": 1, "x": 2}}]}"#,
        ] {
            assert!(
                parallel_entries(Arguments::Text(text), "submit_result").is_err(),
                "{text}"
            );
        }
        // The tool's own entry keeps its text for its parser, which names the member.
        let own = r#"{"tool_uses": [{"recipient_name": "functions.submit_result", "parameters": {"x": 1, "x": 2}}]}"#;
        let entries = parallel_entries(Arguments::Text(own), "submit_result").unwrap();
        assert!(matches!(
            entries[0].arguments(),
            Arguments::Text(r#"{"x": 1, "x": 2}"#)
        ));
        // Deeper objects are the parse's to read.
        let deeper = r#"{"tool_uses": [{"recipient_name": "functions.a", "parameters": {"x": {"y": 1, "y": 2}}}]}"#;
        assert!(parallel_entries(Arguments::Text(deeper), "submit_result").is_ok());
    }
}
