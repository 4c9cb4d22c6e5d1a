//! Tools and their context: a [`Tool`] is a name, schemas and an async function, typed at the
//! edges and JSON inside; its [`ToolContext`] holds the per-call verbs (attach parts, fail,
//! interrupt, read resume data, stream progress); a [`ToolError`] is how a call ends without
//! an output; a [`ToolDefinition`] is the tool as the model sees it.
//!
//! ```
//! use schemars::JsonSchema;
//! use serde::Deserialize;
//! use submit_agent::tool::{Tool, ToolContext, ToolError};
//!
//! #[derive(Deserialize, JsonSchema)]
//! struct Add { a: i64, b: i64 }
//!
//! let add = Tool::new("add", "Adds two numbers.", |_ctx: ToolContext, input: Add| async move {
//!     Ok::<_, ToolError>(input.a + input.b)
//! });
//! let out = futures::executor::block_on(add.call(serde_json::json!({"a": 2, "b": 3}))).unwrap();
//! assert_eq!(out.output, Some(serde_json::json!(5)));
//! ```
//!
//! A [`TypedTool`] keeps its input, output and resume types, so an interrupted call of it can
//! be claimed ([`TypedTool::interrupted`]) and answered with typed directives.

pub(crate) mod context;
mod definition;
mod error;

pub use crate::message::output::ToolOutput;
pub use context::ToolContext;
pub use definition::{ToolDefinition, WireDefinitions};
pub use error::ToolError;

use std::future::Future;
use std::marker::PhantomData;
use std::sync::Arc;

use futures::future::BoxFuture;
use futures::FutureExt;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{Map, Value};

use crate::message::{JsonObject, Part, PartKind, Restart, ToolRequest, KEY_INTERRUPT_RESPONSE};
use crate::schema;
use context::{to_object, CallState, Stage};

type ToolFuture = BoxFuture<'static, Result<ToolOutput, ToolError>>;
type RunFn = dyn Fn(ToolContext, Value) -> ToolFuture + Send + Sync;

struct Inner {
    definition: ToolDefinition,
    input: Option<jsonschema::Validator>,
    output: Option<jsonschema::Validator>,
    resume: Option<jsonschema::Validator>,
    run: Box<RunFn>,
}

/// A tool the loop can run: a name, schemas and an async function. Cheap to clone.
///
/// ```
/// use schemars::JsonSchema;
/// use serde::Deserialize;
/// use submit_agent::tool::{Tool, ToolContext, ToolError};
///
/// #[derive(Deserialize, JsonSchema)]
/// struct Add { a: i64, b: i64 }
///
/// let add = Tool::new("add", "Adds two numbers.", |_ctx: ToolContext, input: Add| async move {
///     Ok::<_, ToolError>(input.a + input.b)
/// });
/// assert_eq!(add.name(), "add");
/// let out = futures::executor::block_on(add.call(serde_json::json!({"a": 2, "b": 3}))).unwrap();
/// assert_eq!(out.output, Some(serde_json::json!(5)));
/// ```
#[derive(Clone)]
pub struct Tool {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Tool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tool")
            .field("name", &self.inner.definition.name)
            .finish_non_exhaustive()
    }
}

/// A tool whose definition is unusable.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DefinitionError {
    /// The resume type does not describe a JSON object.
    #[error("{constructor}: the resume type of tool {tool:?} must be a JSON object (a struct or a map), but its schema is {schema}: wrap the value in a struct")]
    ResumeNotObject {
        /// The constructor called.
        constructor: &'static str,
        /// The tool's name.
        tool: String,
        /// The schema's type.
        schema: String,
    },
}

fn schema_value<T: JsonSchema>() -> Value {
    let mut v = serde_json::to_value(schemars::schema_for!(T)).unwrap_or(Value::Bool(true));
    if let Value::Object(m) = &mut v {
        m.remove("$schema");
        m.remove("title");
    }
    v
}

fn compile(schema: &Value) -> Option<jsonschema::Validator> {
    match jsonschema::validator_for(schema) {
        Ok(v) => Some(v),
        Err(e) => {
            tracing::warn!(error = %e, "schema not compiled; values go unchecked");
            None
        }
    }
}

impl Tool {
    /// A typed tool: the input is validated against `In`'s schema, then decoded; the output
    /// is serialized.
    pub fn new<In, Out, F, Fut>(
        name: impl Into<String>,
        description: impl Into<String>,
        function: F,
    ) -> Tool
    where
        In: DeserializeOwned + JsonSchema + Send + 'static,
        Out: Serialize + JsonSchema + 'static,
        F: Fn(ToolContext, In) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Out, ToolError>> + Send + 'static,
    {
        TypedTool::<In, Out, JsonObject>::new(name, description, function).into_tool()
    }

    /// A tool returning a [`ToolOutput`] (output plus content parts) instead of a typed value.
    pub fn multipart<In, F, Fut>(
        name: impl Into<String>,
        description: impl Into<String>,
        function: F,
    ) -> Tool
    where
        In: DeserializeOwned + JsonSchema + Send + 'static,
        F: Fn(ToolContext, In) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ToolOutput, ToolError>> + Send + 'static,
    {
        let name = name.into();
        let tool_name = name.clone();
        let run = move |ctx: ToolContext, input: Value| -> ToolFuture {
            match decode::<In>(&tool_name, input) {
                Ok(input) => function(ctx, input).boxed(),
                Err(e) => futures::future::ready(Err(e)).boxed(),
            }
        };
        Tool::assemble(
            ToolDefinition {
                name,
                description: description.into(),
                input_schema: schema_value::<In>(),
                output_schema: None,
                resume_schema: Some(serde_json::json!({"type": "object"})),
                wire: Default::default(),
            },
            Box::new(run),
        )
    }

    /// A tool from a definition and an untyped function (the definition's schemas validate).
    pub fn from_fn<F, Fut>(definition: ToolDefinition, function: F) -> Tool
    where
        F: Fn(ToolContext, Value) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ToolOutput, ToolError>> + Send + 'static,
    {
        Tool::assemble(
            definition,
            Box::new(move |ctx, input| function(ctx, input).boxed()),
        )
    }

    /// A tool whose input is judged by whoever runs it (an MCP server validates its own
    /// arguments and answers a mismatch as an error the model can act on): the definition's
    /// input schema is shown to the model but not checked here.
    #[cfg(feature = "mcp")]
    pub(crate) fn from_fn_judged_remotely<F, Fut>(definition: ToolDefinition, function: F) -> Tool
    where
        F: Fn(ToolContext, Value) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ToolOutput, ToolError>> + Send + 'static,
    {
        let mut tool = Tool::assemble(
            definition,
            Box::new(move |ctx, input| function(ctx, input).boxed()),
        );
        if let Some(inner) = Arc::get_mut(&mut tool.inner) {
            inner.input = None;
        }
        tool
    }

    fn assemble(definition: ToolDefinition, run: Box<RunFn>) -> Tool {
        let input = compile(&definition.input_schema);
        let output = definition.output_schema.as_ref().and_then(compile);
        let resume = definition.resume_schema.as_ref().and_then(compile);
        Tool {
            inner: Arc::new(Inner {
                definition,
                input,
                output,
                resume,
                run,
            }),
        }
    }

    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.inner.definition.name
    }

    /// The definition the model sees.
    pub fn definition(&self) -> &ToolDefinition {
        &self.inner.definition
    }

    /// Runs the tool directly, outside a loop: its own part sink (attached parts are folded
    /// into the output), no stream, no restart, no hooks.
    pub async fn call(&self, input: Value) -> Result<ToolOutput, ToolError> {
        let state = CallState::new(self.name().to_owned(), None, None, None);
        let ctx = ToolContext::for_stage(Arc::clone(&state), Stage::Tool);
        let result = self.run(ctx, input).await;
        let attached = state.take_parts();
        result.map(|mut out| {
            out.content.extend(attached);
            out
        })
    }

    /// Validates the input, then runs the function with `ctx`.
    pub(crate) fn run(&self, ctx: ToolContext, input: Value) -> ToolFuture {
        if let Some(validator) = &self.inner.input {
            if let Some(problem) = schema::first_problem(validator, &input) {
                let err = ToolError::msg(format!(
                    "tool {:?}: input does not match its schema: {problem}",
                    self.name()
                ));
                return futures::future::ready(Err(err)).boxed();
            }
        }
        (self.inner.run)(ctx, input)
    }

    /// Checks a caller-supplied output against the output schema.
    pub(crate) fn check_output(&self, output: &Value) -> Result<(), String> {
        match &self.inner.output {
            Some(v) => schema::first_problem(v, output).map_or(Ok(()), Err),
            None => Ok(()),
        }
    }

    /// Checks resume data against the resume schema.
    pub(crate) fn check_resume(&self, resume: &Value) -> Result<(), String> {
        match &self.inner.resume {
            Some(v) => schema::first_problem(v, resume).map_or(Ok(()), Err),
            None => Ok(()),
        }
    }
}

fn decode<In: DeserializeOwned>(tool: &str, input: Value) -> Result<In, ToolError> {
    let input = if input.is_null() {
        Value::Object(Map::new())
    } else {
        input
    };
    serde_json::from_value(input)
        .map_err(|e| ToolError::msg(format!("tool {tool:?}: failed to decode input: {e}")))
}

/// A typed tool that keeps its types, so interrupted calls can be claimed and answered with
/// typed directives. `Res` is the resume data's type (a JSON object).
pub struct TypedTool<In, Out, Res = JsonObject> {
    tool: Tool,
    _types: PhantomData<Types<In, Out, Res>>,
}

/// The type parameters of a typed tool, without owning values of them.
type Types<In, Out, Res> = fn() -> (In, Out, Res);

impl<In, Out, Res> Clone for TypedTool<In, Out, Res> {
    fn clone(&self) -> Self {
        TypedTool {
            tool: self.tool.clone(),
            _types: PhantomData,
        }
    }
}

impl<In, Out, Res> std::fmt::Debug for TypedTool<In, Out, Res> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.tool.fmt(f)
    }
}

impl<In, Out> TypedTool<In, Out, JsonObject>
where
    In: DeserializeOwned + JsonSchema + Send + 'static,
    Out: Serialize + JsonSchema + 'static,
{
    /// A typed tool without a resume type (resume data is any JSON object).
    pub fn new<F, Fut>(name: impl Into<String>, description: impl Into<String>, function: F) -> Self
    where
        F: Fn(ToolContext, In) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Out, ToolError>> + Send + 'static,
    {
        let function = Arc::new(function);
        Self::build(
            name.into(),
            description.into(),
            serde_json::json!({"type": "object"}),
            move |ctx, input, _resume: Option<JsonObject>| function(ctx, input),
        )
    }
}

impl<In, Out, Res> TypedTool<In, Out, Res>
where
    In: DeserializeOwned + JsonSchema + Send + 'static,
    Out: Serialize + JsonSchema + 'static,
    Res: DeserializeOwned + JsonSchema + Send + 'static,
{
    /// A resumable tool: `resume` is `None` on a fresh call and `Some` on a restart answering
    /// the tool (for a bare restart, the value `{}` decodes into, when it does).
    /// Fails when `Res` does not describe a JSON object.
    pub fn resumable<F, Fut>(
        name: impl Into<String>,
        description: impl Into<String>,
        function: F,
    ) -> Result<Self, DefinitionError>
    where
        F: Fn(ToolContext, In, Option<Res>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Out, ToolError>> + Send + 'static,
    {
        let name = name.into();
        let resume_schema = schema_value::<Res>();
        let ty = resume_schema.get("type").cloned().unwrap_or(Value::Null);
        if ty != Value::String("object".into()) {
            return Err(DefinitionError::ResumeNotObject {
                constructor: "TypedTool::resumable",
                tool: name,
                schema: ty.to_string(),
            });
        }
        Ok(Self::build(
            name,
            description.into(),
            resume_schema,
            function,
        ))
    }

    fn build<F, Fut>(name: String, description: String, resume_schema: Value, function: F) -> Self
    where
        F: Fn(ToolContext, In, Option<Res>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Out, ToolError>> + Send + 'static,
    {
        let tool_name = name.clone();
        let run = move |ctx: ToolContext, input: Value| -> ToolFuture {
            let input = match decode::<In>(&tool_name, input) {
                Ok(i) => i,
                Err(e) => return futures::future::ready(Err(e)).boxed(),
            };
            let resume = match ctx.resume_object() {
                None => None,
                Some(obj) => match serde_json::from_value::<Res>(Value::Object(obj.clone())) {
                    Ok(r) => Some(r),
                    Err(e) => {
                        let err = ToolError::msg(format!(
                            "tool {tool_name:?}: failed to convert resume data: {e}"
                        ));
                        return futures::future::ready(Err(err)).boxed();
                    }
                },
            };
            let tool_name = tool_name.clone();
            function(ctx, input, resume)
                .map(move |result| {
                    let out = result?;
                    let value = serde_json::to_value(&out).map_err(|e| {
                        ToolError::msg(format!("tool {tool_name:?}: failed to encode output: {e}"))
                    })?;
                    Ok(ToolOutput::value(value))
                })
                .boxed()
        };
        let tool = Tool::assemble(
            ToolDefinition {
                name,
                description,
                input_schema: schema_value::<In>(),
                output_schema: Some(schema_value::<Out>()),
                resume_schema: Some(resume_schema),
                wire: Default::default(),
            },
            Box::new(run),
        );
        TypedTool {
            tool,
            _types: PhantomData,
        }
    }

    /// The erased tool.
    pub fn into_tool(self) -> Tool {
        self.tool
    }

    /// The erased tool, borrowed.
    pub fn tool(&self) -> &Tool {
        &self.tool
    }

    /// Claims an interrupted request of this tool: `None` for a part that is not a request,
    /// another tool's, a resolved or absent interrupt, a hold raised by a hook, or an input
    /// that does not decode as `In`.
    pub fn interrupted(&self, part: &Part) -> Option<TypedInterrupt<In, Out, Res>> {
        let request = part.as_tool_request()?;
        let interrupt = request.interrupt.as_ref()?;
        if interrupt.resolved || interrupt.raised_by.is_some() || request.name != self.tool.name() {
            return None;
        }
        let input = serde_json::from_value(request.input_value().into_owned()).ok()?;
        Some(TypedInterrupt {
            part: part.clone(),
            input,
            _types: PhantomData,
        })
    }
}

impl<In, Out, Res> From<TypedTool<In, Out, Res>> for Tool {
    fn from(t: TypedTool<In, Out, Res>) -> Tool {
        t.tool
    }
}

/// An interrupt of a [`TypedTool`], claimed by it ([`TypedTool::interrupted`]): the request
/// part and its decoded input; builds the typed directives that answer it.
pub struct TypedInterrupt<In, Out, Res> {
    /// The interrupted request part.
    pub part: Part,
    /// Its input, decoded.
    pub input: In,
    _types: PhantomData<fn() -> (Out, Res)>,
}

impl<In, Out: Serialize, Res: Serialize> TypedInterrupt<In, Out, Res> {
    /// The interrupt data decoded into `T` (serde); `None` for a bare interrupt or a mismatch.
    pub fn data<T: DeserializeOwned>(&self) -> Option<T> {
        interrupt_as(&self.part)
    }

    /// A restart directive: the tool runs again and receives `resume`.
    pub fn restart(&self, resume: Res) -> Part {
        self.directive(None, &resume)
    }

    /// A respond directive: the model reads `output` as the tool's answer; the tool is not run.
    pub fn respond(&self, output: Out) -> Part {
        let request = self.request();
        let mut part = Part::tool_response(
            request.name.clone(),
            request.reference.clone(),
            Some(serde_json::to_value(&output).unwrap_or(Value::Null)),
        );
        part.set_meta(KEY_INTERRUPT_RESPONSE, Value::Bool(true));
        part
    }

    fn request(&self) -> ToolRequest {
        self.part.as_tool_request().cloned().unwrap_or_default()
    }

    fn directive(&self, input: Option<Value>, resume: &Res) -> Part {
        let request = self.request();
        // A resume type that does not serialize to an object is carried as is and rejected
        // by the resume's validation, before any tool runs.
        let resume = match to_object(resume) {
            Ok(None) => None,
            Ok(Some(m)) => Some(Value::Object(m)),
            Err(_) => Some(serde_json::to_value(resume).unwrap_or(Value::Null)),
        };
        let (input, arguments_text, original_input) = match input {
            Some(new) => (new, None, Some(request.input_value().into_owned())),
            None => (request.input.clone(), request.arguments_text.clone(), None),
        };
        Part {
            kind: PartKind::ToolRequest(ToolRequest {
                name: request.name,
                reference: request.reference,
                input,
                arguments_text,
                interrupt: None,
                restart: Some(Restart {
                    resume,
                    original_input,
                }),
                pending: None,
            }),
            metadata: self.part.metadata.clone(),
        }
    }
}

impl<In: Serialize, Out: Serialize, Res: Serialize> TypedInterrupt<In, Out, Res> {
    /// A restart directive that replaces the input; the tool reads the old one with
    /// [`ToolContext::original_input`].
    pub fn restart_with_input(&self, input: In, resume: Res) -> Part {
        let input = serde_json::to_value(&input).unwrap_or(Value::Null);
        self.directive(Some(input), &resume)
    }
}

/// The data of an unresolved interrupt, decoded into `T` (serde).
pub fn interrupt_as<T: DeserializeOwned>(part: &Part) -> Option<T> {
    let interrupt = part.as_tool_request()?.interrupt.as_ref()?;
    if interrupt.resolved {
        return None;
    }
    let data = interrupt.data.clone()?;
    serde_json::from_value(Value::Object(data)).ok()
}
