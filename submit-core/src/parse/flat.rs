//! Step 3: a flat payload, built from the arguments by exact property name.

use serde_json::Value;

use super::arguments::{Args, JsonType, Param};
use super::payload::{Located, Payload};
use crate::error::{ParameterCause, SubmitError};
use crate::tool::Property;

/// Step 3. Every property of the full schema is picked from the arguments by exact name; the
/// first required property (schema order) that is absent or `null` rejects. No string
/// coercion, no recovery.
pub(crate) fn build<'a>(
    args: &Args<'a>,
    properties: &'a [Property],
) -> Result<Located<'a>, SubmitError> {
    let mut picked = Vec::with_capacity(properties.len());
    for property in properties {
        let param = args.get(&property.name);
        let is_null = param.is_some_and(|param| param.json_type() == JsonType::Null);
        if property.required && (param.is_none() || is_null) {
            return Err(SubmitError::parameter(
                ParameterCause::AbsentOrMistyped,
                format!("{} parameter is required", property.name),
            ));
        }
        if let Some(param) = param {
            picked.push((property.name.as_str(), param));
        }
    }
    Ok(Located::direct(assemble(picked)))
}

/// The picked members as a payload: borrowed values in place, raw members joined into the
/// text of one object.
fn assemble<'a>(picked: Vec<(&'a str, Param<'a>)>) -> Payload<'a> {
    let mut values = Vec::with_capacity(picked.len());
    let mut text = String::from("{");
    for (name, param) in picked {
        match param {
            Param::Value(value) => values.push((name, value)),
            Param::Raw(raw) => {
                if text.len() > 1 {
                    text.push(',');
                }
                text.push_str(&Value::from(name).to_string());
                text.push(':');
                text.push_str(raw.get());
            }
        }
    }
    if text.len() > 1 {
        text.push('}');
        Payload::Text(text.into())
    } else if values.is_empty() {
        Payload::Text("{}".into())
    } else {
        Payload::Members(values)
    }
}

#[cfg(test)]
mod tests {
    use super::super::arguments::{decode, Arguments};
    use super::*;
    use serde_json::json;

    fn properties() -> Vec<Property> {
        vec![
            Property {
                name: "summary".into(),
                required: true,
            },
            Property {
                name: "count".into(),
                required: true,
            },
            Property {
                name: "note".into(),
                required: false,
            },
        ]
    }

    #[test]
    fn flat_payload_picks_properties_by_exact_name() {
        let properties = properties();
        let value = json!({"reasoning": "r", "summary": "s", "count": 2, "Note": "x", "extra": 1});
        let located = build(&decode(Arguments::Value(&value)).unwrap(), &properties).unwrap();
        let Payload::Members(members) = located.payload else {
            panic!("members expected")
        };
        assert_eq!(
            members,
            vec![("summary", &json!("s")), ("count", &json!(2))]
        );

        let text = value.to_string();
        let located = build(&decode(Arguments::Text(&text)).unwrap(), &properties).unwrap();
        let Payload::Text(text) = located.payload else {
            panic!("text expected")
        };
        assert_eq!(text, r#"{"summary":"s","count":2}"#);
    }

    #[test]
    fn first_missing_or_null_required_property_is_named() {
        let properties = properties();
        for value in [
            json!({"note": "x"}),
            json!({"summary": null, "count": null}),
        ] {
            let error = build(&decode(Arguments::Value(&value)).unwrap(), &properties).unwrap_err();
            assert_eq!(error.cause(), Some(ParameterCause::AbsentOrMistyped));
            assert_eq!(error.message(), "summary parameter is required");
        }
        let value = json!({"summary": "s"});
        let error = build(&decode(Arguments::Value(&value)).unwrap(), &properties).unwrap_err();
        assert_eq!(error.message(), "count parameter is required");
    }

    #[test]
    fn optional_null_is_kept_for_decoding() {
        let properties = properties();
        let text = r#"{"summary":"s","count":1,"note":null}"#;
        let located = build(&decode(Arguments::Text(text)).unwrap(), &properties).unwrap();
        let Payload::Text(text) = located.payload else {
            panic!("text expected")
        };
        assert_eq!(text, r#"{"summary":"s","count":1,"note":null}"#);
    }
}
