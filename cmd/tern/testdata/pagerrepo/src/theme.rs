/// Theme holds the colours a file is printed in.
pub struct Theme {
    pub background: Colour,
    pub foreground: Colour,
}

impl Theme {
    /// load reads a theme file and takes its background and foreground colours.
    pub fn load(path: &Path) -> Result<Theme, Error> {
        let settings = plist::from_file(path)?;
        Ok(Theme { background: settings.colour("background")?, foreground: settings.colour("foreground")? })
    }
}
