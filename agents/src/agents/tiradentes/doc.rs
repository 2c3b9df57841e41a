//! A small document model (headings, paragraphs, lists, tables of plain text) and its two
//! renderings: Markdown, with the characters Markdown reads escaped, and a self-contained HTML
//! page, with every text escaped. The report is written once as blocks; both formats say the
//! same thing.

/// One block of a document. Every string is plain text: the renderers escape it.
#[derive(Debug, Clone, PartialEq)]
pub enum Block {
    /// A heading of level 1 to 3.
    Heading(u8, String),
    /// A paragraph.
    Para(String),
    /// A bulleted list.
    List(Vec<String>),
    /// A table: header and rows.
    Table(Vec<String>, Vec<Vec<String>>),
}

/// Escapes the characters Markdown gives meaning to, and folds line breaks into spaces (a
/// table cell or list item stays on its line).
pub fn escape_markdown(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '#' | '|' | '~' => {
                out.push('\\');
                out.push(c);
            }
            '\n' | '\r' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// Escapes text for HTML element content and attribute values.
pub fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
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

/// The blocks as Markdown.
pub fn to_markdown(blocks: &[Block]) -> String {
    let mut out = String::new();
    for b in blocks {
        match b {
            Block::Heading(level, text) => {
                out.push_str(&"#".repeat((*level).clamp(1, 6) as usize));
                out.push(' ');
                out.push_str(&escape_markdown(text));
                out.push_str("\n\n");
            }
            Block::Para(text) => {
                out.push_str(&escape_markdown(text));
                out.push_str("\n\n");
            }
            Block::List(items) => {
                for i in items {
                    out.push_str("- ");
                    out.push_str(&escape_markdown(i));
                    out.push('\n');
                }
                out.push('\n');
            }
            Block::Table(head, rows) => {
                let line = |cells: &[String]| {
                    let cells: Vec<String> = cells.iter().map(|c| escape_markdown(c)).collect();
                    format!("| {} |\n", cells.join(" | "))
                };
                out.push_str(&line(head));
                out.push_str(&format!("|{}\n", " --- |".repeat(head.len())));
                for r in rows {
                    out.push_str(&line(r));
                }
                out.push('\n');
            }
        }
    }
    out
}

const STYLE: &str = "body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;\
line-height:1.45;color:#1b1b1b}table{border-collapse:collapse;margin:1rem 0}th,td{border:1px solid #bbb;\
padding:.3rem .6rem;text-align:left;vertical-align:top}th{background:#eee}h1{border-bottom:2px solid #333}";

/// The blocks as one self-contained HTML page (inline style, no external resource), titled `title`.
pub fn to_html(title: &str, blocks: &[Block]) -> String {
    let mut out = format!(
        "<!DOCTYPE html>\n<html lang=\"pt-BR\">\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n<style>{}</style>\n</head>\n<body>\n",
        escape_html(title),
        STYLE
    );
    for b in blocks {
        match b {
            Block::Heading(level, text) => {
                let l = (*level).clamp(1, 6);
                out.push_str(&format!("<h{l}>{}</h{l}>\n", escape_html(text)));
            }
            Block::Para(text) => out.push_str(&format!("<p>{}</p>\n", escape_html(text))),
            Block::List(items) => {
                out.push_str("<ul>\n");
                for i in items {
                    out.push_str(&format!("<li>{}</li>\n", escape_html(i)));
                }
                out.push_str("</ul>\n");
            }
            Block::Table(head, rows) => {
                out.push_str("<table>\n<thead><tr>");
                for h in head {
                    out.push_str(&format!("<th>{}</th>", escape_html(h)));
                }
                out.push_str("</tr></thead>\n<tbody>\n");
                for r in rows {
                    out.push_str("<tr>");
                    for c in r {
                        out.push_str(&format!("<td>{}</td>", escape_html(c)));
                    }
                    out.push_str("</tr>\n");
                }
                out.push_str("</tbody>\n</table>\n");
            }
        }
    }
    out.push_str("</body>\n</html>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_that_looks_like_markup_is_escaped_in_both_formats() {
        let blocks = vec![
            Block::Heading(1, "Relatório <script>alert(1)</script>".into()),
            Block::Para("Objeto: *URGENTE* [ver] a|b & \"c\"\nsegunda linha".into()),
            Block::Table(vec!["id".into(), "valor".into()], vec![vec!["1|2".into(), "R$ 1.000,00".into()]]),
            Block::List(vec!["# não é título".into()]),
        ];
        let md = to_markdown(&blocks);
        assert!(md.starts_with("# Relatório \\<script\\>alert(1)\\</script\\>\n\n"));
        assert!(md.contains("Objeto: \\*URGENTE\\* \\[ver\\] a\\|b & \"c\" segunda linha"));
        assert!(md.contains("| id | valor |\n| --- | --- |\n| 1\\|2 | R$ 1.000,00 |"));
        assert!(md.contains("- \\# não é título"));
        let html = to_html("T <b>", &blocks);
        assert!(html.starts_with("<!DOCTYPE html>") && html.ends_with("</html>\n"));
        assert!(html.contains("<title>T &lt;b&gt;</title>"));
        assert!(html.contains("<h1>Relatório &lt;script&gt;alert(1)&lt;/script&gt;</h1>"));
        assert!(html.contains("a|b &amp; &quot;c&quot;"));
        assert!(!html.contains("<script>"));
        assert!(!html.contains("http"), "no external resource");
    }
}
