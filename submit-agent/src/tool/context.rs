//! The context a tool function or a tool hook receives, and its verbs.

use std::sync::{Arc, Mutex, PoisonError};

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;
use submit_core::JsonType;

use crate::message::{Chunk, Interrupt, JsonObject, Part};
use crate::model::stream::Stream;
use crate::tool::ToolError;

/// Restart state delivered to the stages of one call.
#[derive(Clone, Debug, Default)]
pub(crate) struct Delivery {
    /// The resume data (an empty object for a bare restart).
    pub(crate) resume: JsonObject,
    /// The input before the restart replaced it.
    pub(crate) original_input: Option<Value>,
    /// The stage the restart answers: a hook id, `None` for the tool.
    pub(crate) raised_by: Option<String>,
    /// The hooks that had let the call through before the interrupt.
    pub(crate) released_by: Vec<String>,
    /// An interrupt that records neither its stage nor released hooks: every stage reads it.
    pub(crate) legacy: bool,
}

/// The per-call state every stage of one call shares.
pub(crate) struct CallState {
    pub(crate) name: String,
    pub(crate) reference: Option<String>,
    /// The attached parts; `None` once the call has returned.
    parts: Mutex<Option<Vec<Part>>>,
    stream: Option<Arc<Stream>>,
    pub(crate) delivery: Option<Delivery>,
    /// Hooks that called `next`, in order.
    passed: Mutex<Vec<String>>,
}

impl CallState {
    pub(crate) fn new(
        name: String,
        reference: Option<String>,
        stream: Option<Arc<Stream>>,
        delivery: Option<Delivery>,
    ) -> Arc<Self> {
        Arc::new(CallState {
            name,
            reference,
            parts: Mutex::new(Some(Vec::new())),
            stream,
            delivery,
            passed: Mutex::new(Vec::new()),
        })
    }

    /// Closes the sink and takes what was attached.
    pub(crate) fn take_parts(&self) -> Vec<Part> {
        self.parts
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
            .unwrap_or_default()
    }

    pub(crate) fn record_passed(&self, hook: &str) {
        let mut passed = self.passed.lock().unwrap_or_else(PoisonError::into_inner);
        if !passed.iter().any(|h| h == hook) {
            passed.push(hook.to_owned());
        }
    }

    fn passed(&self) -> Vec<String> {
        self.passed
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

/// Which stage of a call a context belongs to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Stage {
    /// A tool hook, by id.
    Hook(String),
    /// The tool function.
    Tool,
}

/// What a tool function and a tool hook receive: the per-call verbs.
///
/// Cheap to clone; a clone handed to a task the tool awaits works the same. Outside a loop
/// ([`ToolContext::detached`]) every verb is a harmless no-op.
///
/// ```
/// use submit_agent::{message::Part, tool::ToolContext};
///
/// let ctx = ToolContext::detached();
/// ctx.attach_parts([Part::text("ignored outside a loop")]);
/// assert!(!ctx.released());
/// assert_eq!(ctx.resume_data::<serde_json::Value>(), None);
/// ```
#[derive(Clone)]
pub struct ToolContext {
    call: Option<Arc<CallState>>,
    stage: Stage,
}

impl std::fmt::Debug for ToolContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolContext")
            .field("tool", &self.call.as_ref().map(|c| c.name.as_str()))
            .field("stage", &self.stage)
            .finish()
    }
}

impl Default for ToolContext {
    fn default() -> Self {
        ToolContext::detached()
    }
}

impl ToolContext {
    /// A context outside any loop: every verb is a no-op.
    pub fn detached() -> Self {
        ToolContext {
            call: None,
            stage: Stage::Tool,
        }
    }

    pub(crate) fn for_stage(call: Arc<CallState>, stage: Stage) -> Self {
        ToolContext {
            call: Some(call),
            stage,
        }
    }

    /// The called tool's name (`""` outside a loop).
    pub fn tool_name(&self) -> &str {
        self.call.as_ref().map_or("", |c| c.name.as_str())
    }

    /// The call's reference.
    pub fn reference(&self) -> Option<&str> {
        self.call.as_ref().and_then(|c| c.reference.as_deref())
    }

    /// Attaches extra content parts (media …) to this call's response. `None` and empty parts
    /// are skipped. The parts land after any content the tool returned itself, in call order;
    /// they are dropped if the call errors, interrupts, or has already returned.
    pub fn attach_parts<I, P>(&self, parts: I)
    where
        I: IntoIterator<Item = P>,
        P: Into<Option<Part>>,
    {
        let Some(call) = &self.call else { return };
        let mut sink = call.parts.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(sink) = sink.as_mut() {
            sink.extend(
                parts
                    .into_iter()
                    .filter_map(Into::into)
                    .filter(|p: &Part| !p.is_empty()),
            );
        }
    }

    /// An error meant for the model: the loop answers `{"error": <message>}` and continues.
    pub fn fail<E>(&self, error: E) -> ToolError
    where
        E: std::error::Error + Send + Sync + 'static,
    {
        ToolError::fail(error)
    }

    /// An error meant for the model, from a message.
    pub fn fail_message(&self, message: impl Into<String>) -> ToolError {
        ToolError::fail_message(message)
    }

    /// An interrupt carrying `data`, which must serialize to a JSON object (a struct or a map)
    /// or to `null` (a bare interrupt). Anything else yields a plain error saying so, which
    /// fails the call like any tool error.
    ///
    /// ```
    /// use submit_agent::tool::ToolContext;
    ///
    /// let ctx = ToolContext::detached();
    /// assert!(ctx.interrupt(serde_json::json!({"reason": "large"})).is_interrupt());
    /// let err = ctx.interrupt("approve?");
    /// assert!(!err.is_interrupt());
    /// assert!(err.to_string().contains("JSON object"));
    /// ```
    pub fn interrupt<T: Serialize>(&self, data: T) -> ToolError {
        match serde_json::to_value(&data) {
            Ok(Value::Null) => self.interrupt_with(None),
            Ok(Value::Object(map)) => self.interrupt_with(Some(map)),
            Ok(other) => ToolError::msg(format!(
                "interrupt data must serialize to a JSON object (a struct or map), got {}: wrap the value in a struct field",
                JsonType::of(&other).as_str()
            )),
            Err(e) => ToolError::msg(format!(
                "interrupt data must serialize to a JSON object (a struct or map), but it failed to serialize: {e}"
            )),
        }
    }

    /// A bare interrupt (no data).
    pub fn interrupt_bare(&self) -> ToolError {
        self.interrupt_with(None)
    }

    fn interrupt_with(&self, data: Option<JsonObject>) -> ToolError {
        let (raised_by, released_by) = match (&self.call, &self.stage) {
            (Some(call), Stage::Hook(id)) => {
                let mut passed = call.passed();
                passed.retain(|h| h != id);
                (Some(id.clone()), passed)
            }
            (Some(call), Stage::Tool) => (None, call.passed()),
            (None, _) => (None, Vec::new()),
        };
        ToolError::interrupt(Interrupt {
            data,
            resolved: false,
            raised_by,
            released_by,
        })
    }

    /// The delivery, when the restart answers this stage.
    fn answered_delivery(&self) -> Option<&Delivery> {
        let delivery = self.call.as_ref()?.delivery.as_ref()?;
        let answers = delivery.legacy
            || match &self.stage {
                Stage::Tool => delivery.raised_by.is_none(),
                Stage::Hook(id) => delivery.raised_by.as_deref() == Some(id.as_str()),
            };
        answers.then_some(delivery)
    }

    /// In the stage a restart answers: the resume data decoded into `T` (serde). A bare
    /// restart reads as an empty object. Otherwise `None` (also when the data does not decode).
    pub fn resume_data<T: DeserializeOwned>(&self) -> Option<T> {
        let delivery = self.answered_delivery()?;
        serde_json::from_value(Value::Object(delivery.resume.clone())).ok()
    }

    /// The raw resume object, when the restart answers this stage.
    pub fn resume_object(&self) -> Option<&JsonObject> {
        self.answered_delivery().map(|d| &d.resume)
    }

    /// In the stage a restart answers, when the restart replaced the input: the input before
    /// replacement, decoded into `T` (serde). Otherwise `None`.
    pub fn original_input<T: DeserializeOwned>(&self) -> Option<T> {
        let original = self.answered_delivery()?.original_input.clone()?;
        serde_json::from_value(original).ok()
    }

    /// In a hook: true only when the call is a restart answering a later stage and the
    /// interrupted call records that this hook let it through. False on a fresh call, in the
    /// stage the restart answers, in a hook not recorded, and when the restart replaced the
    /// input.
    pub fn released(&self) -> bool {
        let (Some(call), Stage::Hook(id)) = (&self.call, &self.stage) else {
            return false;
        };
        let Some(d) = &call.delivery else {
            return false;
        };
        !d.legacy
            && d.original_input.is_none()
            && d.raised_by.as_deref() != Some(id.as_str())
            && d.released_by.iter().any(|h| h == id)
    }

    /// Streams a progress chunk (role `tool` unless set). A no-op when the run is not
    /// streaming; a sink error never fails the tool.
    pub fn send_chunk(&self, chunk: Chunk) {
        if let Some(stream) = self.call.as_ref().and_then(|c| c.stream.as_ref()) {
            stream.tool_chunk(chunk);
        }
    }
}

/// Converts serializable data to a JSON object, as resume and interrupt data must be.
pub(crate) fn to_object<T: Serialize>(value: &T) -> Result<Option<JsonObject>, String> {
    match serde_json::to_value(value) {
        Ok(Value::Null) => Ok(None),
        Ok(Value::Object(m)) => Ok(Some(m)),
        Ok(other) => Err(JsonType::of(&other).as_str().to_owned()),
        Err(e) => Err(e.to_string()),
    }
}
