//! Why a submit call was rejected: the error class and, for parameter errors, the cause.

/// The class of a rejected submit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorClass {
    /// Rejected before the payload could be parsed.
    Parameter,
    /// The payload parsed but did not decode into the response type.
    Payload,
}

impl ErrorClass {
    /// The class's name as it is serialized (`parameter`, `payload`).
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorClass::Parameter => "parameter",
            ErrorClass::Payload => "payload",
        }
    }
}

/// Which of the parameter causes fired.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ParameterCause {
    /// The arguments were not one JSON object.
    UndecodableArguments,
    /// A required parameter was absent or of the wrong JSON type.
    #[serde(rename = "absent_or_mistyped")]
    AbsentOrMistyped,
    /// The payload arrived as a string that is not an object followed by closing tokens.
    #[serde(rename = "stringified_declined")]
    StringifiedDeclined,
    /// The payload was written inside the reasoning and could not be recovered from there.
    #[serde(rename = "reasoning_declined")]
    ReasoningDeclined,
    /// A string parameter of a flat payload swallowed another parameter's
    /// `<parameter name="…">` block (see [rejections](crate::rules::rejections)).
    SwallowedParameter,
    /// The call was the last of a turn that stopped at the output-token limit, so its
    /// arguments may be cut off, whatever they parse to.
    TruncatedCall,
}

impl ParameterCause {
    /// The cause's name as it is serialized (`undecodable_arguments`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            ParameterCause::UndecodableArguments => "undecodable_arguments",
            ParameterCause::AbsentOrMistyped => "absent_or_mistyped",
            ParameterCause::StringifiedDeclined => "stringified_declined",
            ParameterCause::ReasoningDeclined => "reasoning_declined",
            ParameterCause::SwallowedParameter => "swallowed_parameter",
            ParameterCause::TruncatedCall => "truncated_call",
        }
    }

    /// Every cause, in the order the [rejections](crate::rules::rejections) page lists them.
    pub const ALL: [ParameterCause; 6] = [
        ParameterCause::UndecodableArguments,
        ParameterCause::AbsentOrMistyped,
        ParameterCause::StringifiedDeclined,
        ParameterCause::ReasoningDeclined,
        ParameterCause::SwallowedParameter,
        ParameterCause::TruncatedCall,
    ];
}

/// A rejected submit's error. Match [`SubmitError::class`] and [`SubmitError::cause`], never
/// the message: it quotes model-written text.
///
/// A tool of one's own builds it with [`SubmitError::parameter`] or [`SubmitError::payload`]:
///
/// ```
/// # extern crate submit_core as submit_result;
/// use submit_result::{ErrorClass, ParameterCause, SubmitError};
///
/// let error = SubmitError::parameter(ParameterCause::AbsentOrMistyped, "reasoning is required".into());
/// assert_eq!(error.class(), ErrorClass::Parameter);
/// assert_eq!(error.cause(), Some(ParameterCause::AbsentOrMistyped));
/// assert_eq!(error.to_string(), "parameter error: reasoning is required");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SubmitError {
    /// Rejected before the payload could be parsed.
    #[error("parameter error: {message}")]
    #[non_exhaustive]
    Parameter {
        /// The cause that fired.
        cause: ParameterCause,
        /// The message the model got.
        message: String,
        /// For a declined stringified payload: its byte length and bounded, escaped opening.
        echo: Option<String>,
    },
    /// The payload did not decode into the response type.
    #[error("payload error: {message}")]
    #[non_exhaustive]
    Payload {
        /// The message the model got.
        message: String,
    },
}

impl SubmitError {
    /// A parameter error without an echo.
    pub fn parameter(cause: ParameterCause, message: String) -> Self {
        SubmitError::Parameter {
            cause,
            message,
            echo: None,
        }
    }

    /// A payload error: the payload did not decode into the response type.
    pub fn payload(message: String) -> Self {
        SubmitError::Payload { message }
    }

    /// The same parameter error, with `echo`: what the trace shows of the declined text (its
    /// byte length and a bounded, escaped opening). A payload error has no echo and is returned
    /// as it is.
    #[must_use]
    pub fn with_echo(self, echo: String) -> Self {
        match self {
            SubmitError::Parameter { cause, message, .. } => SubmitError::Parameter {
                cause,
                message,
                echo: Some(echo),
            },
            payload @ SubmitError::Payload { .. } => payload,
        }
    }

    /// The error class.
    pub fn class(&self) -> ErrorClass {
        match self {
            SubmitError::Parameter { .. } => ErrorClass::Parameter,
            SubmitError::Payload { .. } => ErrorClass::Payload,
        }
    }

    /// The cause of a parameter error; `None` for a payload error.
    pub fn cause(&self) -> Option<ParameterCause> {
        match self {
            SubmitError::Parameter { cause, .. } => Some(*cause),
            SubmitError::Payload { .. } => None,
        }
    }

    /// The message the model got.
    pub fn message(&self) -> &str {
        match self {
            SubmitError::Parameter { message, .. } | SubmitError::Payload { message } => message,
        }
    }

    /// What the trace records: the displayed error plus ` (<echo>)` for a declined string.
    pub fn trace_text(&self) -> String {
        match self {
            SubmitError::Parameter {
                echo: Some(echo), ..
            } => format!("{self} ({echo})"),
            _ => self.to_string(),
        }
    }
}
