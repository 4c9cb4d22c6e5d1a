//! Who may call the HTTP server: the bearer token every request must carry, and the browser
//! origins a request may come from.
//!
//! The MCP transport asks servers to validate `Origin` (a web page can reach a loopback
//! server through DNS rebinding, and its requests carry the page's origin); rmcp can check it
//! too, but only after its own routing, so a page without the token would be told 401, not
//! 403. Both checks run here, the origin first, before rmcp sees the request.

use std::io::Write;
use std::path::Path;

use http::header::{AUTHORIZATION, ORIGIN};
use http::HeaderMap;
use subtle::ConstantTimeEq;
use url::{Host, Origin, Url};

use crate::error::CliError;

/// The environment variable that gives the token.
pub const TOKEN_ENV: &str = "SUBMIT_RESULT_MCP_TOKEN";

/// Random bytes in a generated token (written as twice as many hexadecimal digits).
const TOKEN_BYTES: usize = 32;

/// The bearer token requests must carry. Its `Debug` form does not show it.
#[derive(Clone)]
pub struct Token(String);

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Token(..)")
    }
}

impl Token {
    /// The token of [`TOKEN_ENV`], if it is set.
    pub fn from_env() -> Result<Option<Token>, CliError> {
        let Some(value) = std::env::var_os(TOKEN_ENV) else {
            return Ok(None);
        };
        let value = value
            .into_string()
            .map_err(|_| CliError::BadToken("is not UTF-8"))?;
        if value.is_empty() {
            return Err(CliError::BadToken("is empty"));
        }
        if !value.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(CliError::BadToken(
                "holds a space or a character a header cannot carry",
            ));
        }
        Ok(Some(Token(value)))
    }

    /// A new token from the operating system's random source.
    pub fn generate() -> Result<Token, CliError> {
        let mut bytes = [0_u8; TOKEN_BYTES];
        getrandom::fill(&mut bytes).map_err(|error| CliError::NoRandom(error.to_string()))?;
        Ok(Token(bytes.iter().map(|b| format!("{b:02x}")).collect()))
    }

    /// The token's text.
    pub fn secret(&self) -> &str {
        &self.0
    }

    /// Writes the token to `path`, readable by its owner alone.
    pub fn write_to(&self, path: &Path) -> Result<(), CliError> {
        let error = |source| CliError::Write {
            what: "token file",
            path: Some(path.to_path_buf()),
            source,
        };
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create(true).truncate(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
            options.mode(0o600);
            let file = options.open(path).map_err(error)?;
            // A file that was there keeps its mode when opened: set it.
            file.set_permissions(std::fs::Permissions::from_mode(0o600))
                .map_err(error)?;
            write_line(file, &self.0).map_err(error)
        }
        #[cfg(not(unix))]
        {
            let file = options.open(path).map_err(error)?;
            write_line(file, &self.0).map_err(error)
        }
    }
}

/// Writes `text` and a newline to `file`, and syncs it.
fn write_line(mut file: std::fs::File, text: &str) -> std::io::Result<()> {
    file.write_all(text.as_bytes())?;
    file.write_all(b"\n")?;
    file.sync_all()
}

/// How requests are authenticated.
#[derive(Clone, Debug)]
pub enum Auth {
    /// Each must carry this token.
    Bearer(Token),
    /// None needs to (`--no-auth`, loopback only).
    Open,
}

/// Why a request was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// Its `Origin` is not allowed (403).
    Origin,
    /// It carried no `Authorization: Bearer` header (401).
    NoToken,
    /// Its token is not the server's (401).
    WrongToken,
}

impl Auth {
    /// Whether `headers` carry the token.
    pub fn check(&self, headers: &HeaderMap) -> Result<(), Refusal> {
        let Auth::Bearer(token) = self else {
            return Ok(());
        };
        let Some(value) = headers.get(AUTHORIZATION) else {
            return Err(Refusal::NoToken);
        };
        let presented = value
            .to_str()
            .ok()
            .and_then(|value| value.split_once(' '))
            .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
            .map(|(_, credentials)| credentials.trim());
        match presented {
            // Constant time in the token's text; its length is no secret.
            Some(presented) if bool::from(presented.as_bytes().ct_eq(token.0.as_bytes())) => Ok(()),
            Some(_) => Err(Refusal::WrongToken),
            None => Err(Refusal::NoToken),
        }
    }
}

/// The browser origins allowed besides loopback ones.
#[derive(Clone, Debug, Default)]
pub struct Origins(Vec<Origin>);

impl Origins {
    /// The origins given with `--allow-origin`, each checked to be one.
    pub fn new(given: &[String]) -> Result<Origins, CliError> {
        let refuse = |origin: &str, reason: String| CliError::AllowOrigin {
            origin: origin.to_owned(),
            reason,
        };
        let mut origins = Vec::with_capacity(given.len());
        for text in given {
            let url = Url::parse(text).map_err(|error| refuse(text, error.to_string()))?;
            if !matches!(url.scheme(), "http" | "https") {
                return Err(refuse(text, format!("scheme `{}`", url.scheme())));
            }
            if url.path() != "/" || url.query().is_some() || url.fragment().is_some() {
                return Err(refuse(text, "it has a path".to_owned()));
            }
            if !url.username().is_empty() || url.password().is_some() {
                return Err(refuse(text, "it has credentials".to_owned()));
            }
            origins.push(url.origin());
        }
        Ok(Origins(origins))
    }

    /// Whether every `Origin` header of a request is allowed (a request without one is).
    pub fn check(&self, headers: &HeaderMap) -> Result<(), Refusal> {
        let allowed = headers.get_all(ORIGIN).iter().all(|value| {
            let origin = value
                .to_str()
                .ok()
                .and_then(|text| Url::parse(text).ok())
                .map(|url| url.origin());
            origin.is_some_and(|origin| is_loopback(&origin) || self.0.contains(&origin))
        });
        if allowed {
            Ok(())
        } else {
            Err(Refusal::Origin)
        }
    }
}

/// Whether `origin` is a page served from this machine's loopback interface.
fn is_loopback(origin: &Origin) -> bool {
    let Origin::Tuple(scheme, host, _) = origin else {
        // `null` (a sandboxed or local-file page) and opaque origins.
        return false;
    };
    if scheme != "http" && scheme != "https" {
        return false;
    }
    match host {
        Host::Domain(name) => name == "localhost",
        Host::Ipv4(ip) => ip.is_loopback(),
        Host::Ipv6(ip) => ip.is_loopback(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::HeaderValue;

    fn headers(name: http::header::HeaderName, values: &[&str]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for value in values {
            headers.append(name.clone(), HeaderValue::from_str(value).unwrap());
        }
        headers
    }

    #[test]
    fn loopback_and_allowed_origins_pass_others_and_null_do_not() {
        let origins = Origins::new(&["https://app.example.com".to_owned()]).unwrap();
        for ok in [
            "http://localhost:6274",
            "http://127.0.0.1",
            "https://127.9.0.1:8443",
            "http://[::1]:3000",
            "https://app.example.com",
            "https://app.example.com:443",
        ] {
            assert_eq!(origins.check(&headers(ORIGIN, &[ok])), Ok(()), "{ok}");
        }
        for refused in [
            "http://evil.example",
            "null",
            "http://localhost.evil.example",
            "https://app.example.com:8443",
            "http://app.example.com",
            "file:///home",
            "not an origin",
        ] {
            assert_eq!(
                origins.check(&headers(ORIGIN, &[refused])),
                Err(Refusal::Origin),
                "{refused}"
            );
        }
        assert_eq!(origins.check(&HeaderMap::new()), Ok(()));
        assert_eq!(
            origins.check(&headers(
                ORIGIN,
                &["http://localhost", "http://evil.example"]
            )),
            Err(Refusal::Origin)
        );
    }

    #[test]
    fn allowed_origins_must_be_origins() {
        for bad in [
            "app.example.com",
            "ftp://x.example",
            "https://x.example/path",
            "null",
        ] {
            assert!(Origins::new(&[bad.to_owned()]).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_token_is_checked_whatever_the_scheme_case() {
        let auth = Auth::Bearer(Token("s3cret".to_owned()));
        assert_eq!(
            auth.check(&headers(AUTHORIZATION, &["Bearer s3cret"])),
            Ok(())
        );
        assert_eq!(
            auth.check(&headers(AUTHORIZATION, &["bearer s3cret"])),
            Ok(())
        );
        assert_eq!(
            auth.check(&headers(AUTHORIZATION, &["Bearer s3creT"])),
            Err(Refusal::WrongToken)
        );
        assert_eq!(
            auth.check(&headers(AUTHORIZATION, &["Basic s3cret"])),
            Err(Refusal::NoToken)
        );
        assert_eq!(auth.check(&HeaderMap::new()), Err(Refusal::NoToken));
        assert_eq!(Auth::Open.check(&HeaderMap::new()), Ok(()));
    }

    #[test]
    fn generated_tokens_differ_and_do_not_show_in_debug() {
        let (a, b) = (Token::generate().unwrap(), Token::generate().unwrap());
        assert_eq!(a.secret().len(), 64);
        assert_ne!(a.secret(), b.secret());
        assert_eq!(format!("{a:?}"), "Token(..)");
    }
}
