/// Facts about the library itself.
///
/// (Not `Strata.version`: a type named `Strata` would shadow the module's name, and `Strata.DatabasePool`
/// — how code that also imports GRDB tells the two pools apart — would stop compiling.)
///
/// ```swift
/// print("Strata \(StrataLibrary.version), SQLite \(Database.sqliteVersion)")
/// ```
public enum StrataLibrary {
    /// The library's version (semantic versioning; see CHANGELOG.md).
    ///
    /// ```swift
    /// StrataLibrary.version  // "0.9.0"
    /// ```
    public static let version = "0.9.0"
}
