/// Whether schema sync may rebuild a model's table when additive changes cannot make it fit.
///
/// A rebuild follows SQLite's 12-step procedure (https://www.sqlite.org/lang_altertable.html#otheralter):
/// foreign keys off before the transaction, a new table with the model's column definitions and every
/// column the model does not declare, the rows copied (rowids, `sqlite_sequence` and every index and
/// trigger kept), `PRAGMA foreign_key_check`, commit, foreign keys back on.
///
/// ```swift
/// final class Shelf: Model {
///     static let schemaRebuild = SchemaRebuild.whenNeeded   // `capacity` used to be TEXT
///     var id: Int64 = 0
///     var capacity = 12
///     required init() {}
/// }
/// ```
public enum SchemaRebuild: Sendable, Hashable {
    /// Never rebuild: what additive sync cannot do is a ``SchemaError`` (the default).
    /// ```swift
    /// static let schemaRebuild = SchemaRebuild.never
    /// ```
    case never
    /// Rebuild the table when a declared column's type affinity must change, or its NOT NULL: removed for
    /// an optional property, added (with the property's default) for a non-optional one. Values are
    /// converted by SQLite's affinity rules; a value that does not convert (text `'abc'` into an integer
    /// column), a NULL under a new NOT NULL, or a foreign key violation rolls the rebuild back with a
    /// ``SchemaError``. The table's primary key, generated columns and columns the model does not declare
    /// are never changed. A rebuild cannot run inside a transaction while foreign keys are on.
    /// ```swift
    /// static let schemaRebuild = SchemaRebuild.whenNeeded
    /// ```
    case whenNeeded
}
