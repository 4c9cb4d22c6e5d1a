//! Result validators: what checks an accepted response before it commits, the findings they
//! send back to the model, and the built-in check against the payload's own schema.

use futures::future::BoxFuture;
use futures::FutureExt;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use crate::cause::BoxError;
use crate::schema;

/// One problem a result validator found; the model reads it, as JSON, with the others.
///
/// ```
/// use submit_agent::executor::Finding;
///
/// let finding = Finding::new("sources", "cite at least one source")
///     .with_name("Sources")
///     .with_details_url("https://example.com/sources");
/// assert_eq!(
///     serde_json::to_value(&finding).unwrap(),
///     serde_json::json!({
///         "identifier": "sources",
///         "name": "Sources",
///         "details": "cite at least one source",
///         "details_url": "https://example.com/sources"
///     })
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Finding {
    /// A stable identifier (`schema:answer`).
    pub identifier: String,
    /// A display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// What is wrong and what to do.
    pub details: String,
    /// Where to read more.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details_url: Option<String>,
}

impl Finding {
    /// A finding with an identifier and details.
    pub fn new(identifier: impl Into<String>, details: impl Into<String>) -> Self {
        Finding {
            identifier: identifier.into(),
            name: None,
            details: details.into(),
            details_url: None,
        }
    }

    /// This finding with a display name.
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// This finding with a link to read more.
    pub fn with_details_url(mut self, url: impl Into<String>) -> Self {
        self.details_url = Some(url.into());
        self
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
/// use submit_agent::executor::{validator_fn, Finding, ResultValidator};
///
/// let v = validator_fn(|answer: &String, _reasoning: &str| {
///     Ok(if answer.is_empty() { vec![Finding::new("empty", "answer is empty")] } else { vec![] })
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
            Finding::new(
                identifier.clone(),
                format!(
                    "the submitted result does not conform to its declared schema — {at}: {}",
                    p.message
                ),
            )
            .with_name(identifier)
        })
        .collect()
}
