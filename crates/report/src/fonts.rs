//! Fonts for the report, found the way fontconfig would look: the system
//! and user font directories, preferred families first. PDFs embed (a
//! subset of) what is used, so a report opens the same everywhere.

use std::path::{Path, PathBuf};

/// A font file and the face to use inside it (`.ttc` collections hold many).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FontFile {
    pub path: PathBuf,
    pub index: u32,
    pub family: &'static str,
}

/// CJK fonts in order of preference: (file name, face index, family).
/// Noto Sans CJK SC is face 2 of the regular collection.
const CJK: &[(&str, u32, &str)] = &[
    ("NotoSansCJK-Regular.ttc", 2, "Noto Sans CJK SC"),
    ("NotoSansCJKsc-Regular.otf", 0, "Noto Sans CJK SC"),
    ("NotoSansSC-Regular.otf", 0, "Noto Sans SC"),
    ("NotoSansSC-Regular.ttf", 0, "Noto Sans SC"),
    ("wqy-microhei.ttc", 0, "WenQuanYi Micro Hei"),
    ("wqy-zenhei.ttc", 0, "WenQuanYi Zen Hei"),
    ("DroidSansFallbackFull.ttf", 0, "Droid Sans Fallback"),
    ("SourceHanSansSC-Regular.otf", 0, "Source Han Sans SC"),
];

/// Latin fonts in order of preference.
const LATIN: &[(&str, u32, &str)] = &[
    ("DejaVuSans.ttf", 0, "DejaVu Sans"),
    ("LiberationSans-Regular.ttf", 0, "Liberation Sans"),
    ("NotoSans-Regular.ttf", 0, "Noto Sans"),
    ("FreeSans.ttf", 0, "FreeSans"),
];

const LATIN_BOLD: &[(&str, u32, &str)] = &[
    ("DejaVuSans-Bold.ttf", 0, "DejaVu Sans"),
    ("LiberationSans-Bold.ttf", 0, "Liberation Sans"),
    ("NotoSans-Bold.ttf", 0, "Noto Sans"),
];

/// Where fonts live, as fontconfig's default configuration lists them.
fn font_dirs() -> Vec<PathBuf> {
    let mut dirs = vec![
        PathBuf::from("/usr/share/fonts"),
        PathBuf::from("/usr/local/share/fonts"),
        PathBuf::from("/usr/share/fonts-droid-fallback"),
    ];
    if let Some(home) = std::env::var_os("HOME") {
        dirs.push(Path::new(&home).join(".local/share/fonts"));
        dirs.push(Path::new(&home).join(".fonts"));
    }
    if let Some(extra) = std::env::var_os("BREAKPOINT_FONT_DIR") {
        dirs.insert(0, PathBuf::from(extra));
    }
    dirs
}

fn walk(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() && depth < 6 {
            walk(&path, depth + 1, out);
        } else if path.is_file() {
            out.push(path);
        }
    }
}

fn find(wanted: &[(&str, u32, &'static str)], files: &[PathBuf]) -> Option<FontFile> {
    wanted.iter().find_map(|(name, index, family)| {
        files
            .iter()
            .find(|p| p.file_name().is_some_and(|f| f == *name))
            .map(|p| FontFile {
                path: p.clone(),
                index: *index,
                family,
            })
    })
}

/// The fonts found on this machine.
#[derive(Debug, Clone)]
pub struct FontSet {
    pub latin: Option<FontFile>,
    pub latin_bold: Option<FontFile>,
    pub cjk: Option<FontFile>,
}

impl FontSet {
    pub fn discover() -> FontSet {
        let mut files = Vec::new();
        for dir in font_dirs() {
            walk(&dir, 0, &mut files);
        }
        files.sort();
        FontSet {
            latin: find(LATIN, &files),
            latin_bold: find(LATIN_BOLD, &files),
            cjk: find(CJK, &files),
        }
    }
}

/// Whether text needs a CJK font (Han, kana, hangul, CJK punctuation and
/// full-width forms).
pub fn needs_cjk(text: &str) -> bool {
    text.chars().any(|c| {
        matches!(c as u32,
            0x2E80..=0x9FFF | 0xAC00..=0xD7AF | 0xF900..=0xFAFF | 0xFE30..=0xFE4F | 0xFF00..=0xFFEF | 0x20000..=0x3134F)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cjk_text_is_recognised() {
        assert!(needs_cjk("阿里云"));
        assert!(needs_cjk("Platform 腾讯云 A"));
        assert!(!needs_cjk("Platform A — 38.40 CNY, 87 °C"));
    }

    #[test]
    fn preferred_faces_are_chosen_from_what_exists() {
        let files = vec![
            PathBuf::from("/x/wqy-microhei.ttc"),
            PathBuf::from("/y/NotoSansCJK-Regular.ttc"),
        ];
        let f = find(CJK, &files).unwrap();
        assert_eq!((f.family, f.index), ("Noto Sans CJK SC", 2));
        assert!(find(CJK, &[PathBuf::from("/z/DejaVuSans.ttf")]).is_none());
    }
}
