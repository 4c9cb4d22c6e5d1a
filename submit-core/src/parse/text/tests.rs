//! Calls written as text, through `SubmitTool::handle_text`: each form read as written, both
//! sides of every rule.

use serde_json::{json, Value};

use super::super::tests::testing::TestTool;
use crate::error::{ErrorClass, ParameterCause};
use crate::outcome::{Outcome, RecoveryKind, TextFormat};
use crate::stop::StopReason;
use crate::tool::SubmitTool;

/// The sample tool: nested payload `analysis` (`summary` required, `blocked`, `tags`).
fn nested() -> SubmitTool<Value> {
    TestTool::new("analysis").build()
}

/// The sample tool with its properties as parameters.
fn flat() -> SubmitTool<Value> {
    TestTool::new("analysis")
        .options(|options| options.flat_payload(true))
        .build()
}

/// The sample's payload as a Rust type.
#[derive(Debug, serde::Deserialize)]
#[allow(dead_code, reason = "decoded to see that it decodes")]
struct Sample {
    summary: String,
    blocked: Option<bool>,
    tags: Option<Vec<String>>,
}

/// The sample tool decoding into `Sample`.
fn typed(flat: bool) -> SubmitTool<Sample> {
    TestTool::new("analysis")
        .options(|options| options.flat_payload(flat))
        .build()
}

/// The arguments every clean call carries.
const ARGUMENTS: &str = r#"{"reasoning": "r", "analysis": {"summary": "s"}}"#;

/// A clean call of `tool` in `format`, carrying `ARGUMENTS` (for another tool, other arguments).
fn call(format: TextFormat, tool: &str) -> String {
    let arguments = if tool == "submit_result" {
        ARGUMENTS
    } else {
        r#"{"city": "Oslo"}"#
    };
    match format {
        TextFormat::Hermes => {
            format!("<tool_call>\n{{\"name\": \"{tool}\", \"arguments\": {arguments}}}\n</tool_call>")
        }
        TextFormat::XmlFunction if tool == "submit_result" => format!(
            "<tool_call>\n<function={tool}>\n<parameter=reasoning>\nr\n</parameter>\n\
             <parameter=analysis>\n{{\"summary\": \"s\"}}\n</parameter>\n</function>\n</tool_call>"
        ),
        TextFormat::XmlFunction => format!(
            "<tool_call>\n<function={tool}>\n<parameter=city>\nOslo\n</parameter>\n</function>\n</tool_call>"
        ),
        TextFormat::Glm if tool == "submit_result" => format!(
            "<tool_call>{tool}\n<arg_key>reasoning</arg_key>\n<arg_value>r</arg_value>\n\
             <arg_key>analysis</arg_key>\n<arg_value>{{\"summary\": \"s\"}}</arg_value>\n</tool_call>"
        ),
        TextFormat::Glm => format!(
            "<tool_call>{tool}\n<arg_key>city</arg_key>\n<arg_value>Oslo</arg_value>\n</tool_call>"
        ),
        TextFormat::Mistral => format!("[TOOL_CALLS]{tool}[ARGS]{arguments}"),
        TextFormat::LlamaJson => format!("{{\"name\": \"{tool}\", \"parameters\": {arguments}}}"),
        TextFormat::Deepseek => format!(
            "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>{tool}<｜tool▁sep｜>{arguments}\
             <｜tool▁call▁end｜><｜tool▁calls▁end｜>"
        ),
        TextFormat::Kimi => format!(
            "<|tool_calls_section_begin|><|tool_call_begin|>functions.{tool}:0\
             <|tool_call_argument_begin|>{arguments}<|tool_call_end|><|tool_calls_section_end|>"
        ),
        TextFormat::Harmony => format!(
            "<|start|>assistant<|channel|>commentary to=functions.{tool} <|constrain|>json\
             <|message|>{arguments}<|call|>"
        ),
        TextFormat::Pythonic if tool == "submit_result" => {
            format!("[{tool}(reasoning='r', analysis={{'summary': 's'}})]")
        }
        TextFormat::Pythonic => format!("[{tool}(city='Oslo')]"),
    }
}

/// Two calls of `tool` in `format`, in one turn, as the form writes several.
fn two_calls(format: TextFormat, first: &str, second: &str) -> String {
    match format {
        TextFormat::Mistral => format!(
            "[TOOL_CALLS][{{\"name\": \"{first}\", \"arguments\": {{}}}}, \
             {{\"name\": \"{second}\", \"arguments\": {{}}}}]"
        ),
        TextFormat::Deepseek => format!(
            "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>{first}<｜tool▁sep｜>{{}}<｜tool▁call▁end｜>\
             <｜tool▁call▁begin｜>{second}<｜tool▁sep｜>{{}}<｜tool▁call▁end｜><｜tool▁calls▁end｜>"
        ),
        TextFormat::Kimi => format!(
            "<|tool_calls_section_begin|><|tool_call_begin|>functions.{first}:0\
             <|tool_call_argument_begin|>{{}}<|tool_call_end|><|tool_call_begin|>functions.{second}:1\
             <|tool_call_argument_begin|>{{}}<|tool_call_end|><|tool_calls_section_end|>"
        ),
        TextFormat::Pythonic => format!("[{first}(), {second}()]"),
        _ => format!("{}\n{}", call(format, first), call(format, second)),
    }
}

fn read(tool: &SubmitTool<Value>, text: &str) -> Option<Outcome<Value>> {
    tool.handle_text(text, StopReason::Complete)
}

/// The accepted response and the format recorded first.
fn accepted(tool: &SubmitTool<Value>, text: &str) -> (Value, Vec<RecoveryKind>, TextFormat) {
    match read(tool, text) {
        Some(Outcome::Accepted(got)) => {
            let first = got.recoveries.first().expect("call_in_text is recorded");
            assert_eq!(first.kind, RecoveryKind::CallInText, "{text}");
            assert!(first.parameters.is_empty());
            let kinds = got.recoveries.iter().map(|r| r.kind).collect();
            (got.response, kinds, first.format.expect("its format"))
        }
        Some(Outcome::Rejected(rejected)) => panic!("rejected {text:?}: {}", rejected.error),
        None => panic!("not found: {text:?}"),
    }
}

/// The message of a rejected call, checked for the class and cause every decline has.
fn declined(tool: &SubmitTool<Value>, text: &str) -> String {
    match read(tool, text) {
        Some(Outcome::Rejected(rejected)) => {
            assert_eq!(rejected.error.class(), ErrorClass::Parameter, "{text:?}");
            assert_eq!(
                rejected.error.cause(),
                Some(ParameterCause::UndecodableArguments),
                "{text:?}: {}",
                rejected.error
            );
            rejected.error.message().to_owned()
        }
        Some(Outcome::Accepted(_)) => panic!("accepted {text:?}"),
        None => panic!("not found: {text:?}"),
    }
}

/// The error of a rejected call.
fn rejected<R: serde::de::DeserializeOwned>(
    tool: &SubmitTool<R>,
    text: &str,
) -> crate::error::SubmitError {
    match tool.handle_text(text, StopReason::Complete) {
        Some(Outcome::Rejected(rejected)) => rejected.error,
        Some(Outcome::Accepted(_)) => panic!("accepted {text:?}"),
        None => panic!("not found: {text:?}"),
    }
}

/// The message of a call declined (the page's *Declining*), without a reason.
fn not_run(format: TextFormat) -> String {
    format!(
        "your reply contains a {} call of submit_result written as text, which is not run; call \
         submit_result as a tool call",
        format.as_str()
    )
}

fn the_clean_response() -> Value {
    json!({"summary": "s"})
}

#[test]
fn a_clean_call_in_each_form_is_accepted_recording_its_format_first() {
    for format in TextFormat::ALL {
        let text = call(format, "submit_result");
        let (response, kinds, recorded) = accepted(&nested(), &text);
        assert_eq!(response, the_clean_response(), "{format:?}");
        assert_eq!(recorded, format);
        assert_eq!(kinds, vec![RecoveryKind::CallInText], "{format:?}");
        let Some(Outcome::Accepted(got)) = read(&nested(), &text) else {
            unreachable!()
        };
        assert_eq!(got.reasoning, "r");
    }
}

#[test]
fn prose_before_a_call_is_not_part_of_the_verdict() {
    for format in TextFormat::ALL {
        let text = format!(
            "I checked the logs (see [1] and {{the notes}}); \"all\" is fine.\n\n{}",
            call(format, "submit_result")
        );
        if format == TextFormat::LlamaJson {
            // A llama_json call is the whole text: after prose it is no call.
            assert!(read(&nested(), &text).is_none());
            continue;
        }
        assert_eq!(accepted(&nested(), &text).2, format);
    }
}

#[test]
fn whitespace_closing_tokens_and_end_of_turn_tokens_may_follow_a_call() {
    for format in TextFormat::ALL {
        for tail in [
            "\n",
            "<|im_end|>",
            "<|eot_id|>",
            "</s>",
            "\n<｜end▁of▁sentence｜>",
            "<|end|>",
        ] {
            let text = format!("{}{tail}", call(format, "submit_result"));
            assert_eq!(accepted(&nested(), &text).2, format, "{text:?}");
        }
    }
}

#[test]
fn anything_else_after_a_call_declines_it_without_a_reason() {
    for format in TextFormat::ALL {
        for tail in [
            " Let me know.",
            "\n{\"extra\": 1}",
            ")",
            "<|tool_call_end|>",
        ] {
            let text = format!("{}{tail}", call(format, "submit_result"));
            assert_eq!(declined(&nested(), &text), not_run(format), "{text:?}");
        }
    }
}

#[test]
fn two_calls_of_the_submit_tool_decline() {
    for format in TextFormat::ALL {
        let text = two_calls(format, "submit_result", "submit_result");
        assert_eq!(declined(&nested(), &text), not_run(format), "{text:?}");
    }
}

#[test]
fn a_call_of_another_tool_beside_the_submit_call_declines() {
    for format in TextFormat::ALL {
        let after = two_calls(format, "submit_result", "get_weather");
        assert_eq!(declined(&nested(), &after), not_run(format), "{after:?}");
        let before = two_calls(format, "get_weather", "submit_result");
        if format == TextFormat::LlamaJson {
            // A llama_json call starts the text: a second object is no call.
            assert!(read(&nested(), &before).is_none());
            continue;
        }
        assert_eq!(declined(&nested(), &before), not_run(format), "{before:?}");
    }
    // Forms mixed: a hermes call of another tool, then a kimi call of the submit tool.
    let text = format!(
        "{}\n{}",
        call(TextFormat::Hermes, "get_weather"),
        call(TextFormat::Kimi, "submit_result")
    );
    assert_eq!(declined(&nested(), &text), not_run(TextFormat::Kimi));
}

#[test]
fn a_call_of_another_tool_alone_is_not_found() {
    for format in TextFormat::ALL {
        let text = call(format, "get_weather");
        assert!(read(&nested(), &text).is_none(), "{text:?}");
        let text = two_calls(format, "get_weather", "search");
        assert!(read(&nested(), &text).is_none(), "{text:?}");
    }
    for text in [
        "",
        "Nothing to call here.",
        "I will call submit_result once I know more",
        "submit_result",
        "{\"reasoning\": \"r\", \"analysis\": {\"summary\": \"s\"}}",
        "[{\"name\": \"submit_result\", \"arguments\": {}}]",
    ] {
        assert!(read(&nested(), text).is_none(), "{text:?}");
    }
}

#[test]
fn a_call_that_cannot_be_read_is_declined_saying_why() {
    let cases = [
        (
            TextFormat::Hermes,
            "<tool_call>{\"name\": \"submit_result\", \"arguments\": {\"reasoning\": \"r\"}</tool_call>",
            "the call object is not JSON",
        ),
        (
            TextFormat::Hermes,
            "<tool_call>{\"name\": \"submit_result\", \"arguments\": {}}",
            "no </tool_call> after the call object",
        ),
        (
            TextFormat::XmlFunction,
            "<function=submit_result>\n<parameter=reasoning>\nr\n</function>",
            "the value of \"reasoning\" is not closed by </parameter>",
        ),
        (
            TextFormat::Glm,
            "<tool_call>submit_result<arg_key>reasoning</arg_key>r</tool_call>",
            "no <arg_value> after the key \"reasoning\"",
        ),
        (
            TextFormat::Mistral,
            "[TOOL_CALLS]submit_result{\"reasoning\": \"r\"}",
            "no [ARGS] after the tool's name",
        ),
        (
            TextFormat::LlamaJson,
            "{\"name\": \"submit_result\", \"parameters\": {\"reasoning\": \"r\"}",
            "the call object is not JSON",
        ),
        (
            TextFormat::Deepseek,
            "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>submit_result<｜tool▁sep｜>{}",
            "no <｜tool▁call▁end｜> after the arguments",
        ),
        (
            TextFormat::Kimi,
            "<|tool_calls_section_begin|><|tool_call_begin|>functions.submit_result:\
             <|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|>",
            "no call index after functions.NAME:",
        ),
        (
            TextFormat::Harmony,
            "<|channel|>commentary to=functions.submit_result <|constrain|>json<|message|>{\"reasoning\":",
            "the arguments are not one JSON object",
        ),
        (
            TextFormat::Pythonic,
            "[submit_result(reasoning=r)]",
            "the argument \"reasoning\" holds a name, which is not a Python literal",
        ),
    ];
    for (format, text, why) in cases {
        let message = declined(&nested(), text);
        let prefix = format!("{}: ", not_run(format));
        let reason = message
            .strip_prefix(&prefix)
            .unwrap_or_else(|| panic!("{message:?} names no reason"));
        assert!(reason.starts_with(why), "{text:?}: {reason:?}");
    }
}

#[test]
fn hermes_arguments_as_a_json_string_are_argument_text() {
    let encoded = Value::from(ARGUMENTS).to_string();
    let text =
        format!("<tool_call>{{\"name\": \"submit_result\", \"arguments\": {encoded}}}</tool_call>");
    let (response, kinds, _) = accepted(&nested(), &text);
    assert_eq!(response, the_clean_response());
    assert_eq!(kinds, vec![RecoveryKind::CallInText]);
    // The string is argument text: the rules for the arguments as a whole read it.
    let fenced = Value::from(format!("```json\n{ARGUMENTS}\n```")).to_string();
    let text =
        format!("<tool_call>{{\"name\": \"submit_result\", \"arguments\": {fenced}}}</tool_call>");
    let (_, kinds, _) = accepted(&nested(), &text);
    assert_eq!(
        kinds,
        vec![RecoveryKind::CallInText, RecoveryKind::FencedArguments]
    );
    // A string that holds no object is the parse's to reject.
    let text = "<tool_call>{\"name\": \"submit_result\", \"arguments\": \"[1]\"}</tool_call>";
    assert_eq!(
        declined(&nested(), text),
        "failed to parse tool arguments: expected a JSON object, got array"
    );
}

#[test]
fn only_hermes_takes_arguments_as_a_json_string() {
    let encoded = Value::from(ARGUMENTS).to_string();
    for (format, text) in [
        (
            TextFormat::LlamaJson,
            format!("{{\"name\": \"submit_result\", \"parameters\": {encoded}}}"),
        ),
        (
            TextFormat::Mistral,
            format!("[TOOL_CALLS][{{\"name\": \"submit_result\", \"arguments\": {encoded}}}]"),
        ),
    ] {
        let message = declined(&nested(), &text);
        assert!(message.starts_with(&not_run(format)), "{message}");
        assert!(message.ends_with("is not an object"), "{message}");
    }
}

#[test]
fn a_call_that_was_read_gets_the_ordinary_outcome() {
    // A missing reasoning.
    let text = "<tool_call>{\"name\": \"submit_result\", \"arguments\": {\"analysis\": {\"summary\": \"s\"}}}</tool_call>";
    let error = rejected(&nested(), text);
    assert_eq!(error.message(), "reasoning parameter is required");
    assert_eq!(error.cause(), Some(ParameterCause::AbsentOrMistyped));
    // A member named twice in the arguments.
    let text = "<tool_call>{\"name\": \"submit_result\", \"arguments\": {\"reasoning\": \"r\", \"reasoning\": \"q\"}}</tool_call>";
    assert_eq!(
        declined(&nested(), text),
        "failed to parse tool arguments: \"reasoning\" appears twice; send each parameter once"
    );
    // A payload error.
    let text = "[submit_result(reasoning='r', analysis={'summary': 5})]";
    assert_eq!(rejected(&typed(false), text).class(), ErrorClass::Payload);
    // The rules for a call's arguments apply after call_in_text, in their order.
    let text = "[TOOL_CALLS]submit_result[ARGS]{\"reasoning\": \"r\", \"analysis\": \"{\\\"summary\\\": \\\"s\\\"}\"}";
    let (response, kinds, _) = accepted(&nested(), text);
    assert_eq!(response, the_clean_response());
    assert_eq!(
        kinds,
        vec![RecoveryKind::CallInText, RecoveryKind::Stringified]
    );
}

#[test]
fn a_member_of_a_call_object_given_twice_or_not_its_own_declines() {
    for (text, why) in [
        (
            "<tool_call>{\"name\": \"submit_result\", \"name\": \"x\", \"arguments\": {}}</tool_call>",
            "the call object names \"name\" twice",
        ),
        (
            "<tool_call>{\"name\": \"submit_result\", \"arguments\": {}, \"id\": \"1\"}</tool_call>",
            "the call object holds \"id\", which is not one of name, arguments",
        ),
        (
            "<tool_call>{\"name\": \"submit_result\"}</tool_call>",
            "the call object has no arguments",
        ),
    ] {
        assert_eq!(
            declined(&nested(), text),
            format!("{}: {why}", not_run(TextFormat::Hermes))
        );
    }
    // Mistral's array entries may carry an id, llama_json objects a type.
    let text = "[TOOL_CALLS][{\"name\": \"submit_result\", \"arguments\": {\"reasoning\": \"r\", \"analysis\": {\"summary\": \"s\"}}, \"id\": \"abc123def\"}]";
    assert_eq!(accepted(&nested(), text).2, TextFormat::Mistral);
    let text = format!(
        "{{\"type\": \"function\", \"name\": \"submit_result\", \"parameters\": {ARGUMENTS}}}"
    );
    assert_eq!(accepted(&nested(), &text).2, TextFormat::LlamaJson);
    let text =
        format!("{{\"type\": \"tool\", \"name\": \"submit_result\", \"parameters\": {ARGUMENTS}}}");
    assert!(
        read(&nested(), &text).is_none(),
        "a type other than function"
    );
    let text =
        format!("{{\"name\": \"submit_result\", \"type\": \"tool\", \"parameters\": {ARGUMENTS}}}");
    assert!(declined(&nested(), &text).ends_with("the call object's type is not \"function\""));
}

#[test]
fn a_json_form_names_its_tool_only_in_its_first_member() {
    for text in [
        format!("<tool_call>{{\"arguments\": {ARGUMENTS}, \"name\": \"submit_result\"}}</tool_call>"),
        format!("{{\"parameters\": {ARGUMENTS}, \"name\": \"submit_result\"}}"),
        format!("{{\"type\": \"function\", \"function\": {{\"name\": \"submit_result\", \"parameters\": {ARGUMENTS}}}}}"),
    ] {
        assert!(read(&nested(), &text).is_none(), "{text}");
    }
}

#[test]
fn a_form_inside_a_json_string_is_not_a_call() {
    let hermes = call(TextFormat::Hermes, "submit_result");
    let xml = call(TextFormat::XmlFunction, "submit_result");
    let python = call(TextFormat::Pythonic, "submit_result");
    for quoted in [&hermes, &xml, &python] {
        let printed = json!({"role": "assistant", "content": quoted}).to_string();
        for text in [
            printed.clone(),
            format!("The log shows:\n{printed}\nThat is all."),
            format!("```json\n[{printed}]\n```"),
        ] {
            assert!(read(&nested(), &text).is_none(), "{text}");
        }
    }
    // A call after the JSON is read.
    let printed = json!({"content": xml}).to_string();
    let text = format!("{printed}\n{hermes}");
    assert_eq!(accepted(&nested(), &text).2, TextFormat::Hermes);
    // A hermes call quoted in a string is escaped: it names nothing even where the JSON around
    // it is broken.
    let text = format!("{{\"content\": {}", Value::from(hermes.as_str()));
    assert!(read(&nested(), &text).is_none());
}

#[test]
fn a_brace_or_bracket_in_prose_hides_nothing_after_it() {
    let hermes = call(TextFormat::Hermes, "submit_result");
    for prose in [
        "Steps: [1] read, [2] fix. ",
        "A set {x | x > 0} and a list [1, 2, and 3 ",
        "{\"unfinished\": \"value\", ",
        "[[[[[[ ",
        "{see below} ",
    ] {
        let text = format!("{prose}{hermes}");
        assert_eq!(accepted(&nested(), &text).2, TextFormat::Hermes, "{text}");
    }
}

#[test]
fn a_cut_off_turn_declines_a_found_call_as_truncated_counting_from_its_first_marker() {
    let truncated = |text: &str| match nested().handle_text(text, StopReason::OutputLimit) {
        Some(Outcome::Rejected(rejected)) => {
            assert_eq!(rejected.error.cause(), Some(ParameterCause::TruncatedCall));
            rejected.error.message().to_owned()
        }
        _ => panic!("not rejected as cut off: {text:?}"),
    };
    let cut_after = |bytes: usize| {
        format!("the submit_result call was cut off at the output-token limit after {bytes} bytes")
    };
    for format in TextFormat::ALL {
        let clean = call(format, "submit_result");
        let prose = if format == TextFormat::LlamaJson {
            ""
        } else {
            "Prose first. "
        };
        let half = clean.get(..clean.len() / 2 + 1).unwrap_or(&clean);
        // Ahead of any other objection: a call cut in the middle.
        for call in [clean.as_str(), half] {
            let text = format!("{prose}{call}");
            let message = truncated(&text);
            assert!(
                message.starts_with(&cut_after(call.len())),
                "{text:?}: {message}"
            );
        }
        // Or with another call beside it.
        truncated(&two_calls(format, "submit_result", "get_weather"));
    }
    // A harmony call starts at its header.
    let harmony = call(TextFormat::Harmony, "submit_result");
    let message = truncated(&format!("Thinking.<|end|>{harmony}"));
    assert!(message.starts_with(&cut_after(harmony.len())));
    // No call, nothing to cut.
    assert!(nested()
        .handle_text("Still thinking about it", StopReason::OutputLimit)
        .is_none());
}

#[test]
fn xml_and_glm_values_are_typed_by_the_parameter_they_name() {
    // Flat: a string property keeps its text without one leading and one trailing line break,
    // a boolean and an array are read as JSON.
    let text = "<function=submit_result>\n<parameter=reasoning>\n  r\n\n</parameter>\n\
                <parameter=summary>\n\n s \n\n</parameter>\n<parameter=blocked>\n true \n</parameter>\n\
                <parameter=tags>\n[\"a\", \"b\"]\n</parameter>\n</function>";
    let Some(Outcome::Accepted(got)) = read(&flat(), text) else {
        panic!("not accepted");
    };
    assert_eq!(
        got.response,
        json!({"summary": "\n s \n", "blocked": true, "tags": ["a", "b"]})
    );
    assert_eq!(got.reasoning, "  r\n");
    assert_eq!(got.recoveries.len(), 1, "only call_in_text");
    // A value of no admitted type stays a string, for the decoder to name.
    let text = "<tool_call>submit_result<arg_key>reasoning</arg_key><arg_value>r</arg_value>\
                <arg_key>summary</arg_key><arg_value>s</arg_value>\
                <arg_key>blocked</arg_key><arg_value>maybe</arg_value></tool_call>";
    assert_eq!(rejected(&typed(true), text).class(), ErrorClass::Payload);
    // null where the schema admits it.
    let text = "<tool_call>submit_result<arg_key>reasoning</arg_key><arg_value>r</arg_value>\
                <arg_key>summary</arg_key><arg_value>s</arg_value>\
                <arg_key>blocked</arg_key><arg_value>null</arg_value></tool_call>";
    assert_eq!(
        accepted(&flat(), text).0,
        json!({"summary": "s", "blocked": null})
    );
    // Nested: the payload is JSON text read as an object; reasoning is text.
    let text = "<tool_call>submit_result<arg_key>reasoning</arg_key><arg_value>{\"a\": 1}</arg_value>\
                <arg_key>analysis</arg_key><arg_value>\n{\"summary\": \"s\"}}\n</arg_value></tool_call>";
    let Some(Outcome::Accepted(got)) = read(&nested(), text) else {
        panic!("not accepted");
    };
    assert_eq!(got.reasoning, "{\"a\": 1}");
    assert_eq!(got.response, the_clean_response());
    assert_eq!(got.recoveries.len(), 1);
    // A payload that is no object stays a string: the stringified payload's decline.
    let text = "<function=submit_result><parameter=reasoning>r</parameter>\
                <parameter=analysis>not json</parameter></function>";
    assert_eq!(
        rejected(&nested(), text).cause(),
        Some(ParameterCause::StringifiedDeclined)
    );
}

#[test]
fn xml_and_glm_allow_whitespace_between_tags_and_crlf_line_breaks() {
    let text = "<tool_call>\r\n  <function=submit_result>\r\n\t<parameter=reasoning>\r\nr\r\n</parameter>  \
                \r\n<parameter=analysis>\r\n{\"summary\": \"s\"}\r\n</parameter>\r\n</function>\r\n</tool_call>\r\n";
    let Some(Outcome::Accepted(got)) = read(&nested(), text) else {
        panic!("not accepted");
    };
    assert_eq!(got.reasoning, "r");
    let text = "<tool_call> submit_result \n <arg_key>reasoning</arg_key> \n <arg_value>r</arg_value> \
                <arg_key>analysis</arg_key>\t<arg_value>{\"summary\": \"s\"}</arg_value> </tool_call>";
    assert_eq!(accepted(&nested(), text).0, the_clean_response());
    // No tags at all: a glm call without arguments.
    let text = "<tool_call>submit_result</tool_call>";
    assert_eq!(
        rejected(&nested(), text).message(),
        "reasoning parameter is required"
    );
}

#[test]
fn a_value_holding_another_marker_of_its_form_declines() {
    for (text, why) in [
        (
            "<function=submit_result><parameter=reasoning>r<parameter=analysis>{}</parameter></function>",
            "the value of \"reasoning\" holds <parameter=",
        ),
        (
            "<function=submit_result><parameter=reasoning>r</function></parameter></function>",
            "the value of \"reasoning\" holds </function>",
        ),
        (
            "<tool_call>submit_result<arg_key>reasoning</arg_key><arg_value>r<arg_key>x</arg_key></arg_value></tool_call>",
            "the value of \"reasoning\" holds <arg_key>",
        ),
    ] {
        let message = declined(&nested(), text);
        assert!(message.ends_with(why), "{message}");
    }
}

#[test]
fn a_key_given_twice_gets_the_duplicate_message() {
    let text = "<function=submit_result><parameter=reasoning>r</parameter>\
                <parameter=reasoning>q</parameter></function>";
    assert_eq!(
        declined(&nested(), text),
        "failed to parse tool arguments: \"reasoning\" appears twice; send each parameter once"
    );
}

#[test]
fn pythonic_literals_become_json() {
    let text = "[submit_result(reasoning='it\\'s \\x41\\u00e9\\N' \"\", analysis={\"summary\": 's'}, extra=(1, -2.5, +3, .5, 1e3, 7., True, False, None, [], (), {}, (1,)))]";
    assert!(read(&flat(), text).is_some());
    let text = "submit_result(reasoning=\"a\\qb\\\\ \\101\\t\", analysis = {'summary': 's', 'tags': ['x',],}, )";
    let Some(Outcome::Accepted(got)) = read(&nested(), text) else {
        panic!("not accepted")
    };
    assert_eq!(got.reasoning, "a\\qb\\ A\t");
    assert_eq!(got.response, json!({"summary": "s", "tags": ["x"]}));
    let text =
        "submit_result(reasoning='r', analysis={'summary': 's', 'blocked': False, 'tags': None})";
    assert_eq!(
        accepted(&nested(), text).0,
        json!({"summary": "s", "blocked": false, "tags": null})
    );
    let text = "Malformed function call: print(default_api.submit_result(reasoning='r',\n analysis={'summary': 's'}))";
    assert_eq!(accepted(&nested(), text).2, TextFormat::Pythonic);
}

#[test]
fn pythonic_values_that_are_not_literals_decline() {
    for (value, what) in [
        ("x", "a name"),
        ("f(1)", "a call"),
        ("1 + 2", "an expression"),
        ("f'{x}'", "a prefixed string"),
        ("r'x'", "a prefixed string"),
        ("b'x'", "a prefixed string"),
        ("u'x'", "a prefixed string"),
        ("'''x'''", "a triple-quoted string"),
        ("\"\"\"x\"\"\"", "a triple-quoted string"),
        ("007", "an integer with a leading zero"),
        ("{1: 'a'}", "a dict key that is not a string"),
        (
            "{'a', 'b'}",
            "a set or a dict without a colon after its key",
        ),
        ("(1)", "a parenthesized expression"),
        ("0x1F", "a number that is not a decimal literal"),
        ("1_000", "a number that is not a decimal literal"),
        ("1j", "a number that is not a decimal literal"),
        ("'a' 'b'", "an expression"),
        ("'\\N{DASH}'", "a \\N{…} escape"),
        ("'\\ud800'", "an escape that is no Unicode scalar value"),
        ("'\\x4'", "an escape without its hex digits"),
        ("'open", "a string that is not closed"),
        ("-True", "an expression"),
    ] {
        let text = format!("[submit_result(reasoning={value})]");
        let message = declined(&nested(), &text);
        assert_eq!(
            message,
            format!(
                "{}: the argument \"reasoning\" holds {what}, which is not a Python literal",
                not_run(TextFormat::Pythonic)
            ),
            "{value}"
        );
    }
    let message = declined(&nested(), "submit_result({'reasoning': 'r'})");
    assert!(
        message.ends_with("the call has a positional argument; pass each argument as name=value")
    );
}

#[test]
fn pythonic_nesting_deeper_than_128_declines_without_recursion() {
    let fits = format!(
        "submit_result(reasoning='r', analysis={{'summary': 's', 'tags': {}{}}})",
        "[".repeat(127),
        "]".repeat(127)
    );
    assert!(read(&nested(), &fits).is_some());
    let deep = format!(
        "submit_result(reasoning={}1{})",
        "[".repeat(129),
        "]".repeat(129)
    );
    assert!(declined(&nested(), &deep)
        .ends_with("the argument \"reasoning\" nests deeper than 128 levels"));
    let huge = format!("[submit_result(reasoning={}", "[(".repeat(1 << 18));
    assert!(declined(&nested(), &huge).contains("nests deeper than 128"));
}

#[test]
fn pythonic_name_after_an_identifier_character_or_a_dot_is_no_call() {
    for text in [
        "my_submit_result(reasoning='r')",
        "tools.submit_result(reasoning='r')",
        "résumésubmit_result(reasoning='r')",
    ] {
        assert!(read(&nested(), text).is_none(), "{text}");
    }
    // Another tool's call is a call only inside the submit call's own list.
    let text = "First get_weather(city='Oslo'), then: [submit_result(reasoning='r', analysis={'summary': 's'})]";
    assert_eq!(accepted(&nested(), text).2, TextFormat::Pythonic);
    let text = "[get_weather(city='Oslo', note=')]'), submit_result(reasoning='r')]";
    assert_eq!(declined(&nested(), text), not_run(TextFormat::Pythonic));
    // A list of other tools' calls is no call, and what it holds is not read.
    let text = "[get_weather(city=submit_result(reasoning='r'))]";
    assert!(read(&nested(), text).is_none());
}

#[test]
fn harmony_reads_the_recipient_before_or_after_the_channel() {
    for text in [
        format!("<|start|>assistant<|channel|>commentary to=functions.submit_result <|constrain|>json<|message|>{ARGUMENTS}<|call|>"),
        format!("<|start|>assistant to=functions.submit_result<|channel|>commentary json<|message|>{ARGUMENTS}<|call|>"),
        format!("to=functions.submit_result<|channel|>analysis<|message|>{ARGUMENTS}"),
        format!("to=functions.submit_result json{ARGUMENTS}"),
        format!("to=functions.submit_result {ARGUMENTS}"),
        format!("<|channel|>analysis<|message|>Plan.<|end|><|start|>assistant<|channel|>commentary to=functions.submit_result<|constrain|>json<|message|>{ARGUMENTS}<|call|>"),
    ] {
        assert_eq!(accepted(&nested(), &text).2, TextFormat::Harmony, "{text}");
    }
    let message = declined(&nested(), "to=functions.submit_result and then some prose");
    assert!(message.ends_with("no arguments object where the form has one"));
}

#[test]
fn deepseek_and_kimi_allow_whitespace_between_markers_and_need_their_section() {
    for text in [
        format!(
            "<｜tool▁calls▁begin｜>\n<｜tool▁call▁begin｜>function<｜tool▁sep｜>submit_result\n```json\n{ARGUMENTS}\n```\n<｜tool▁call▁end｜>\n<｜tool▁calls▁end｜>"
        ),
        format!(
            "<｜tool▁calls▁begin｜> <｜tool▁call▁begin｜>submit_result<｜tool▁sep｜> {ARGUMENTS} <｜tool▁call▁end｜> <｜tool▁calls▁end｜><｜end▁of▁sentence｜>"
        ),
    ] {
        assert_eq!(accepted(&nested(), &text).2, TextFormat::Deepseek, "{text}");
    }
    let text = format!(
        "<|tool_calls_section_begin|> <|tool_call_begin|>\nfunctions.submit_result:12 <|tool_call_argument_begin|> {ARGUMENTS} <|tool_call_end|> <|tool_calls_section_end|>"
    );
    assert_eq!(accepted(&nested(), &text).2, TextFormat::Kimi);
    for (text, why) in [
        (
            format!("<｜tool▁call▁begin｜>submit_result<｜tool▁sep｜>{ARGUMENTS}<｜tool▁call▁end｜>"),
            "the call does not open with <｜tool▁calls▁begin｜>",
        ),
        (
            format!("<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>submit_result<｜tool▁sep｜>{ARGUMENTS}<｜tool▁call▁end｜>"),
            "no <｜tool▁calls▁end｜> after the call",
        ),
        (
            format!("<|tool_calls_section_begin|><|tool_call_begin|>functions.submit_result:0<|tool_call_argument_begin|>{ARGUMENTS}<|tool_call_end|>"),
            "no <|tool_calls_section_end|> after the call",
        ),
    ] {
        assert!(declined(&nested(), &text).ends_with(why), "{text}");
    }
}

#[test]
fn mistral_reads_a_call_id_and_whitespace_after_its_marker() {
    for text in [
        format!("[TOOL_CALLS] submit_result[CALL_ID]a1_B-2[ARGS]{ARGUMENTS}"),
        format!("[TOOL_CALLS]submit_result[ARGS] {ARGUMENTS}</s>"),
        format!("[TOOL_CALLS] [{{\"name\": \"submit_result\", \"arguments\": {ARGUMENTS}}}]"),
    ] {
        assert_eq!(accepted(&nested(), &text).2, TextFormat::Mistral, "{text}");
    }
    let message = declined(
        &nested(),
        &format!("[TOOL_CALLS]submit_result[CALL_ID]a b[ARGS]{ARGUMENTS}"),
    );
    assert!(message.ends_with("no [ARGS] after the call id"));
}

#[test]
fn llama_json_starts_the_text_after_a_python_tag_or_a_fence() {
    for text in [
        format!("  <|python_tag|>{{\"name\": \"submit_result\", \"parameters\": {ARGUMENTS}}}<|eom_id|>"),
        format!("<|python_start|>{{\"name\": \"submit_result\", \"arguments\": {ARGUMENTS}}}<|python_end|>"),
        format!("```json\n{{\"name\": \"submit_result\", \"parameters\": {ARGUMENTS}}}\n```"),
    ] {
        assert_eq!(accepted(&nested(), &text).2, TextFormat::LlamaJson, "{text}");
    }
    let unclosed = format!("```json\n{{\"name\": \"submit_result\", \"parameters\": {ARGUMENTS}}}");
    assert!(declined(&nested(), &unclosed)
        .ends_with("the Markdown fence does not close after the call object"));
    let both = format!(
        "{{\"name\": \"submit_result\", \"parameters\": {ARGUMENTS}, \"arguments\": {{}}}}"
    );
    assert!(
        declined(&nested(), &both).ends_with("the call object holds both parameters and arguments")
    );
}

#[test]
fn a_found_call_of_a_flat_tool_named_by_the_options_is_read_with_its_properties() {
    let tool: SubmitTool<Value> = TestTool::new("analysis")
        .options(|options| {
            options
                .tool_name("get_weather")
                .flat_payload(true)
                .omit_reasoning(true)
        })
        .properties(&[("city", true)])
        .build();
    let text = call(TextFormat::Glm, "get_weather");
    assert_eq!(accepted(&tool, &text).0, json!({"city": "Oslo"}));
    let text = call(TextFormat::Pythonic, "get_weather");
    assert_eq!(accepted(&tool, &text).0, json!({"city": "Oslo"}));
}

#[test]
fn reading_is_linear_and_never_panics_on_adversarial_text() {
    // A megabyte of each: a pass that went back over the text for each piece would take
    // minutes; the pass takes well under a second each, even unoptimized.
    let size = 1 << 20;
    for piece in [
        "<tool_call>",
        "<tool_call>\n",
        "<tool_call>{\"name\": \"submit_result\"",
        "<tool_call>submit_result<arg_key>",
        "[TOOL_CALLS][",
        "[TOOL_CALLS][\"",
        "[a('''",
        "[a(",
        "[x(\"\"\"",
        "[get_weather('",
        "[submit_result(a=[",
        "{\"a\":\"",
        "{\"a\":[",
        "[\"[",
        "[1,",
        "to=functions.",
        "to=functions.x ",
        "Malformed function call: print(default_api.",
        "submit_result(",
        "<function=submit_result><parameter=a>",
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>",
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.",
        "```json\n",
        " \n\t",
        "\u{1f600}<\u{0}[{\\\"",
    ] {
        let text = piece.repeat(size / piece.len());
        let then_a_call = format!("{text}{}", call(TextFormat::Hermes, "submit_result"));
        let started = std::time::Instant::now();
        let _ = nested().handle_text(&text, StopReason::Complete);
        let _ = flat().handle_text(&then_a_call, StopReason::Complete);
        assert!(
            started.elapsed() < std::time::Duration::from_secs(15),
            "{piece:?}: {:?}",
            started.elapsed()
        );
    }
}

#[test]
fn every_cut_of_a_clean_call_is_handled_without_panicking() {
    for format in TextFormat::ALL {
        let text = format!("{}<|im_end|>", call(format, "submit_result"));
        for (at, _) in text.char_indices() {
            let cut = &text[..at];
            let _ = read(&nested(), cut);
            let _ = read(&flat(), cut);
        }
    }
}

#[test]
fn no_part_of_a_call_streams_out_before_its_start_is_marked() {
    let prose = "Checked the file. ";
    assert_eq!(nested().text_call_start(prose), None);
    for format in TextFormat::ALL {
        // A whole-turn form (llama_json) has no prose before it.
        let call = call(format, "submit_result");
        let with_prose = format!("{prose}{call}");
        let (text, before) = match nested().handle_text(&with_prose, StopReason::Complete) {
            Some(_) => (with_prose, prose.len()),
            None => (call, 0),
        };
        assert!(nested().handle_text(&text, StopReason::Complete).is_some());
        let cuts = text.char_indices().map(|(at, _)| at).chain([text.len()]);
        for at in cuts.filter(|&at| at > before) {
            let start = nested().text_call_start(&text[..at]);
            assert!(
                start.is_some_and(|start| start <= before),
                "{format:?} cut at {at}: {start:?}"
            );
        }
    }
}

#[test]
fn a_marker_the_text_ends_in_holds_from_its_start() {
    for (text, start) in [
        ("ok <", Some(3)),
        ("ok to=fun", Some(3)),
        ("ok Malformed func", Some(3)),
        ("ok submit_res", Some(3)),
        ("ok submit_result(", Some(3)),
        ("ok, submit it", Some(12)),
        ("ok, submit now", None),
        ("ok, done.", None),
    ] {
        assert_eq!(nested().text_call_start(text), start, "{text:?}");
    }
}
