//! The report as one static HTML page: the summary table, a chart of the outcomes per kind and
//! cause, the batch entries with no answer, the malformed lines and the declined shapes. No
//! server and nothing fetched: the style, the chart (SVG) and a two-line script are inline.
//! Every text that comes from the input is escaped.

use std::fmt::Write;

use super::report::{Report, RowKind};

/// Width of the chart's bar area and of its label column, in SVG units.
const BAR_WIDTH: f64 = 480.0;
const LABEL_WIDTH: f64 = 190.0;
const BAR_HEIGHT: f64 = 22.0;

/// The page for `report`.
pub fn html(report: &Report) -> String {
    let mut page = String::with_capacity(16 * 1024);
    page.push_str(HEAD);
    let _ = writeln!(
        page,
        "<h1>submit-result triage</h1>\n<p>{} lines, {} calls of the submit tool.</p>",
        report.lines, report.calls
    );
    table(&mut page, report);
    chart(&mut page, report);
    failed_entries(&mut page, report);
    malformed(&mut page, report);
    shapes(&mut page, report);
    page.push_str(TAIL);
    page
}

fn table(page: &mut String, report: &Report) {
    page.push_str("<h2>Summary</h2>\n<table id=\"summary\">\n<tr><th>row</th><th>count</th><th>share of calls</th></tr>\n");
    for row in report.rows() {
        let share = row.share.map(percent).unwrap_or_default();
        let _ = writeln!(
            page,
            "<tr class=\"depth-{}\"><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{share}</td></tr>",
            row.depth.min(2),
            escape(row.label),
            row.count
        );
    }
    page.push_str("</table>\n");
}

/// One bar per outcome kind or cause with a nonzero count, as long as its share of the
/// largest (a part of a kind, `call_in_text` in one format, is in the table only); an empty
/// report draws an empty chart with a note.
fn chart(page: &mut String, report: &Report) {
    let bars: Vec<_> = report
        .rows()
        .into_iter()
        .filter(|row| {
            !matches!(row.kind, RowKind::Count | RowKind::Total | RowKind::Part) && row.count > 0
        })
        .collect();
    let largest = bars.iter().map(|row| row.count).max().unwrap_or(0);
    let height = BAR_HEIGHT * (bars.len().max(1) as f64) + 8.0;
    let width = LABEL_WIDTH + BAR_WIDTH + 110.0;
    page.push_str("<h2>Outcomes per kind and cause</h2>\n");
    page.push_str(
        "<p class=\"note\">A call recovered by several rules counts under each of them.</p>\n",
    );
    let _ = writeln!(
        page,
        "<svg id=\"chart\" role=\"img\" aria-label=\"outcomes per kind and cause\" \
         xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" \
         viewBox=\"0 0 {width} {height}\">"
    );
    if bars.is_empty() {
        let _ = writeln!(
            page,
            "<text x=\"4\" y=\"18\" class=\"label\">no calls of the submit tool</text>"
        );
    }
    for (index, row) in bars.iter().enumerate() {
        let y = 4.0 + BAR_HEIGHT * index as f64;
        let length = if largest == 0 {
            0.0
        } else {
            BAR_WIDTH * row.count as f64 / largest as f64
        };
        let class = match row.kind {
            RowKind::Clean => "clean",
            RowKind::Recovered => "recovered",
            _ => "rejected",
        };
        let share = row.share.map(percent).unwrap_or_default();
        let _ = writeln!(
            page,
            "<g class=\"bar {class}\"><text x=\"{}\" y=\"{:.1}\" class=\"label\" text-anchor=\"end\">{}</text>\
             <rect x=\"{LABEL_WIDTH}\" y=\"{y:.1}\" width=\"{length:.1}\" height=\"{:.1}\"></rect>\
             <text x=\"{:.1}\" y=\"{:.1}\" class=\"value\">{} ({share})</text></g>",
            LABEL_WIDTH - 6.0,
            y + 15.0,
            escape(row.label),
            BAR_HEIGHT - 6.0,
            LABEL_WIDTH + length + 6.0,
            y + 15.0,
            row.count,
        );
    }
    page.push_str("</svg>\n");
}

fn failed_entries(page: &mut String, report: &Report) {
    if report.failed_entries.is_empty() {
        return;
    }
    page.push_str("<h2>Batch entries with no answer</h2>\n<p class=\"note\">Not counted as calls.</p>\n<table id=\"failed\">\n<tr><th>status</th><th>count</th></tr>\n");
    for entry in &report.failed_entries {
        let _ = writeln!(
            page,
            "<tr><td>{}</td><td class=\"n\">{}</td></tr>",
            escape(&entry.status),
            entry.count
        );
    }
    page.push_str("</table>\n");
}

fn malformed(page: &mut String, report: &Report) {
    if report.malformed.first.is_empty() {
        return;
    }
    let _ = writeln!(
        page,
        "<h2>Malformed lines</h2>\n<p class=\"note\">{} in all; the first {} by line number.</p>\n<table id=\"malformed\">\n<tr><th>line</th><th>why</th></tr>",
        report.malformed.count,
        report.malformed.first.len()
    );
    for line in &report.malformed.first {
        let _ = writeln!(
            page,
            "<tr><td class=\"n\">{}</td><td><code>{}</code></td></tr>",
            line.line,
            escape(&line.reason)
        );
    }
    page.push_str("</table>\n");
}

fn shapes(page: &mut String, report: &Report) {
    if report.declined_shapes.is_empty() {
        return;
    }
    let _ = writeln!(
        page,
        "<h2>Most common declined shapes</h2>\n<p class=\"note\">What followed the object{}.</p>\n<table id=\"shapes\">\n<tr><th>count</th><th>share</th><th>cause</th><th>shape</th></tr>",
        if report.declined_shapes_exact {
            ""
        } else {
            "; estimated counts"
        }
    );
    for shape in &report.declined_shapes {
        let cause = serde_json::to_value(shape.cause)
            .ok()
            .and_then(|value| value.as_str().map(str::to_owned))
            .unwrap_or_default();
        let _ = writeln!(
            page,
            "<tr><td class=\"n\">{}</td><td class=\"n\">{}</td><td>{}</td><td><code>{}</code></td></tr>",
            shape.count,
            percent(shape.share),
            escape(&cause),
            escape(&shape.shape)
        );
    }
    page.push_str("</table>\n");
}

fn percent(share: f64) -> String {
    if share.is_finite() {
        format!("{:.2}%", share * 100.0)
    } else {
        String::new()
    }
}

/// Escapes text for HTML content and attribute values.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

const HEAD: &str = r#"<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<script>
window.onerror = function (message) {
  var marker = document.createElement("div");
  marker.id = "script-error";
  marker.textContent = String(message);
  (document.body || document.documentElement).appendChild(marker);
};
</script>
<title>submit-result triage</title>
<style>
body { font-family: system-ui, sans-serif; margin: 2em; color: #1d1d1f; }
table { border-collapse: collapse; margin-bottom: 1.5em; }
th, td { padding: 0.2em 0.8em; border-bottom: 1px solid #ddd; text-align: left; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
tr.depth-1 td:first-child { padding-left: 2em; }
tr.depth-2 td:first-child { padding-left: 3.5em; }
.note { color: #555; font-size: 0.9em; }
code { white-space: pre-wrap; word-break: break-all; }
.bar.clean rect { fill: #2e8b57; }
.bar.recovered rect { fill: #d98c1f; }
.bar.rejected rect { fill: #c0392b; }
svg text { font-size: 12px; fill: #1d1d1f; }
</style>
</head>
<body>
"#;

const TAIL: &str = r#"<script>document.body.dataset.rendered = "ok";</script>
</body>
</html>
"#;

#[cfg(test)]
mod tests {
    use super::super::summary::Summary;
    use super::super::test_support::{accepted, parameter, payload, recovered};
    use super::*;
    use submit_core::{ParameterCause, Recovery, RecoveryKind, TextFormat};

    #[test]
    fn an_empty_report_is_a_whole_page_with_its_chart() {
        let page = html(&Summary::default().report(10));
        assert!(page.starts_with("<!DOCTYPE html>"));
        assert!(page.contains("<svg id=\"chart\""));
        assert!(page.trim_end().ends_with("</html>"));
    }

    #[test]
    fn text_from_the_input_is_escaped() {
        let mut summary = Summary {
            lines: 2,
            ..Summary::default()
        };
        summary.record_malformed(1, "not JSON: </script><script>alert(1)</script>");
        summary.record(
            &parameter(ParameterCause::StringifiedDeclined),
            Some("\"<img src=x onerror=alert(2)>\"".to_owned()),
        );
        summary.record_failed_entry("anthropic batch: <b>".to_owned());
        let page = html(&summary.report(10));
        assert!(!page.contains("<script>alert"), "{page}");
        assert!(!page.contains("<img"), "{page}");
        assert!(!page.contains("<b>"), "{page}");
        assert!(page.contains("&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;"));
        assert!(page.contains("&quot;&lt;img src=x onerror=alert(2)&gt;&quot;"));
    }

    #[test]
    fn an_empty_report_renders_an_empty_chart() {
        let page = html(&Summary::default().report(10));
        assert!(page.contains("<svg id=\"chart\""));
        assert!(page.contains("no calls of the submit tool"));
        assert!(!page.contains("NaN") && !page.contains("inf"), "{page}");
        assert_eq!(page.matches("<g class=\"bar").count(), 0);
    }

    #[test]
    fn one_bar_per_nonzero_kind_and_cause_longest_for_the_largest() {
        let mut summary = Summary::default();
        for _ in 0..3 {
            summary.record(&accepted(None), None);
        }
        summary.record(&accepted(Some(RecoveryKind::Stringified)), None);
        summary.record(&parameter(ParameterCause::AbsentOrMistyped), None);
        summary.record(&payload(), None);
        summary.lines = 6;
        let page = html(&summary.report(10));
        let bars: Vec<&str> = page
            .lines()
            .filter(|l| l.starts_with("<g class=\"bar"))
            .collect();
        assert_eq!(
            bars.len(),
            4,
            "clean, stringified, absent_or_mistyped, payload"
        );
        assert!(bars[0].contains("bar clean") && bars[0].contains(">clean<"));
        assert!(bars[0].contains(&format!("width=\"{BAR_WIDTH:.1}\"")));
        assert!(bars[1].contains("bar recovered") && bars[1].contains("width=\"160.0\""));
        assert!(bars[3].contains("bar rejected") && bars[3].contains(">payload<"));
        assert!(page.contains("<td>clean</td><td class=\"n\">3</td><td class=\"n\">50.00%</td>"));
    }

    #[test]
    fn truncated_calls_have_their_row_and_their_bar() {
        let mut summary = Summary {
            lines: 4,
            ..Summary::default()
        };
        summary.record(&accepted(None), None);
        for _ in 0..2 {
            summary.record(&parameter(ParameterCause::TruncatedCall), None);
        }
        summary.record(&parameter(ParameterCause::SwallowedParameter), None);
        let page = html(&summary.report(10));
        assert!(
            page.contains(
                "<tr class=\"depth-2\"><td>truncated_call</td><td class=\"n\">2</td>\
                 <td class=\"n\">50.00%</td></tr>"
            ),
            "{page}"
        );
        let bars: Vec<&str> = page
            .lines()
            .filter(|l| l.starts_with("<g class=\"bar"))
            .collect();
        assert_eq!(bars.len(), 3, "clean, swallowed_parameter, truncated_call");
        assert!(bars[2].contains("bar rejected") && bars[2].contains(">truncated_call<"));
        assert!(bars[2].contains(&format!("width=\"{BAR_WIDTH:.1}\"")));
    }

    #[test]
    fn calls_in_text_have_their_row_and_bar_and_each_format_a_row_under_it() {
        let mut summary = Summary {
            lines: 4,
            ..Summary::default()
        };
        let in_text = |format| recovered(vec![Recovery::call_in_text(format)]);
        summary.record(&in_text(TextFormat::Hermes), None);
        summary.record(&in_text(TextFormat::Hermes), None);
        summary.record(&in_text(TextFormat::Pythonic), None);
        summary.record(&accepted(None), None);
        let page = html(&summary.report(10));
        for (depth, label, count, share) in [
            (1, "call_in_text", 3, "75.00%"),
            (2, "call_in_text (hermes)", 2, "50.00%"),
            (2, "call_in_text (pythonic)", 1, "25.00%"),
        ] {
            let row = format!(
                "<tr class=\"depth-{depth}\"><td>{label}</td><td class=\"n\">{count}</td>\
                 <td class=\"n\">{share}</td></tr>"
            );
            assert!(page.contains(&row), "{row}: {page}");
        }
        assert!(!page.contains("call_in_text (glm)"), "{page}");
        // A format is a part of call_in_text: the chart draws call_in_text once.
        let bars: Vec<&str> = page
            .lines()
            .filter(|l| l.starts_with("<g class=\"bar"))
            .collect();
        assert_eq!(bars.len(), 2, "clean, call_in_text: {page}");
        assert!(bars[1].contains("bar recovered") && bars[1].contains(">call_in_text<"));
    }
}
