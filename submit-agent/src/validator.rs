//! Result validators: what checks an accepted response before it commits, the findings they
//! send back to the model, and the built-in check against the payload's own schema.

use futures::future::BoxFuture;
use futures::FutureExt;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::BoxError;
use crate::schema;

/// Where a finding comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum FindingKind {
    /// A review of the result (the built-in schema validator's kind).
    Review,
    /// A CI check.
    CiCheck,
}

/// One problem a result validator found; the model reads it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    /// Where it comes from.
    pub kind: FindingKind,
    /// A stable identifier (`schema:answer`).
    pub identifier: String,
    /// A display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// What is wrong and what to do.
    pub details: String,
    /// Where to read more (may be empty).
    #[serde(default)]
    pub details_url: String,
}

impl Finding {
    /// A review finding.
    pub fn review(identifier: impl Into<String>, details: impl Into<String>) -> Self {
        Finding {
            kind: FindingKind::Review,
            identifier: identifier.into(),
            name: None,
            details: details.into(),
            details_url: String::new(),
        }
    }
}

/// Checks an accepted response before it commits. Findings send it back to the model; an
/// error aborts the run.
pub trait ResultValidator<R>: Send + Sync {
    /// Validates `response`; `reasoning` is the submit's final reasoning.
    fn validate<'a>(
        &'a self,
        response: &'a R,
        reasoning: &'a str,
    ) -> BoxFuture<'a, Result<Vec<Finding>, BoxError>>;
}

/// A result validator from a synchronous closure.
///
/// ```
/// use submit_agent::{validator_fn, Finding, ResultValidator};
///
/// let v = validator_fn(|answer: &String, _reasoning: &str| {
///     Ok(if answer.is_empty() { vec![Finding::review("empty", "answer is empty")] } else { vec![] })
/// });
/// let findings = futures::executor::block_on(v.validate(&String::new(), "")).unwrap();
/// assert_eq!(findings.len(), 1);
/// ```
pub fn validator_fn<R, F>(function: F) -> impl ResultValidator<R>
where
    F: Fn(&R, &str) -> Result<Vec<Finding>, BoxError> + Send + Sync,
    R: Sync,
{
    struct FnValidator<F>(F);
    impl<R: Sync, F> ResultValidator<R> for FnValidator<F>
    where
        F: Fn(&R, &str) -> Result<Vec<Finding>, BoxError> + Send + Sync,
    {
        fn validate<'a>(
            &'a self,
            response: &'a R,
            reasoning: &'a str,
        ) -> BoxFuture<'a, Result<Vec<Finding>, BoxError>> {
            futures::future::ready((self.0)(response, reasoning)).boxed()
        }
    }
    FnValidator(function)
}

/// The findings of the built-in check: the response against the payload's schema.
pub(crate) fn schema_findings(validator: &jsonschema::Validator, value: &Value) -> Vec<Finding> {
    schema::problems(validator, value)
        .into_iter()
        .map(|p| {
            let identifier = if p.path.is_empty() {
                "schema".to_owned()
            } else {
                format!("schema:{}", p.path)
            };
            let at = if p.path.is_empty() { "result" } else { &p.path };
            Finding {
                kind: FindingKind::Review,
                name: Some(identifier.clone()),
                identifier,
                details: format!(
                    "the submitted result does not conform to its declared schema — {at}: {}",
                    p.message
                ),
                details_url: String::new(),
            }
        })
        .collect()
}
