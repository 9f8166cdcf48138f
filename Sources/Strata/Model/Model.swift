/// The base class of every model: it carries the bookkeeping Strata needs per instance (which database
/// owns it, its row, whether it was deleted), so that models themselves stay plain classes.
///
/// You never subclass this directly; declare models with ``Model``:
///
/// ```swift
/// final class Department: Model {
///     var id: Int64 = 0
///     var name = ""
///     required init() {}
/// }
/// ```
///
/// The bookkeeping properties skip Swift's dynamic exclusivity checks (`@exclusivity(unchecked)`): they
/// are touched only by the library, on the handle's isolation domain, never across a suspension or an
/// `inout` access, so no two accesses can overlap; the checks cost more than decoding a column.
open class ModelObject {
    /// The registry of the database that owns this instance; nil while it is not attached to one.
    @exclusivity(unchecked) final var _registry: TypeRegistry?
    /// The row's rowid (equal to the key for INTEGER PRIMARY KEY tables); meaningful while registered.
    @exclusivity(unchecked) final var _rowID: Int64 = 0
    /// Set when the row was deleted through the owning database.
    @exclusivity(unchecked) @usableFromInline final var _isDeleted = false
    /// Whether the registry's map by key (``KeyMap``, tables whose key is not the rowid) holds this instance.
    /// It fits in the padding after `_isDeleted`, as `_snapshotSlot` does.
    @exclusivity(unchecked) final var _inKeyMap = false
    /// Whether the registry has yet to make this instance's entry by rowid (a row fetched by its key: see
    /// ``TypeRegistry`` `pendingRowIDs`). In the same padding.
    @exclusivity(unchecked) final var _rowIDPending = false
    /// The slot of the stored values last read or written (``SnapshotStore``); 0: none. It fits in the
    /// padding after `_isDeleted`, so dirty tracking adds nothing to the instance's size.
    @exclusivity(unchecked) @usableFromInline final var _snapshotSlot: UInt32 = 0

    /// Models are made with `init()`; property values come from the declaration.
    ///
    /// ```swift
    /// let department = Department()
    /// ```
    public required init() {}

    deinit {
        _registry?.forgetReleased(self)
    }

    /// True once the row was deleted through the database that owns this instance (by `delete`, by a
    /// raw `DELETE` through the same handle, or because a rolled-back transaction removed it).
    ///
    /// ```swift
    /// try db.delete(ada)
    /// ada.isDeleted  // true
    /// ```
    public final var isDeleted: Bool { _isDeleted }

    /// True while the instance stands for a row of a database (saved or fetched, not deleted).
    ///
    /// ```swift
    /// let d = Department(); d.isPersisted  // false
    /// try db.save(d);       d.isPersisted  // true
    /// ```
    public final var isPersisted: Bool { _registry != nil && !_isDeleted }
}

/// What a model declares about itself. Every requirement but `init()` has a default, so a model
/// declares only what differs:
///
/// ```swift
/// final class Employee: Model {
///     static let primaryKey = "employeeId"                   // default "id"
///     static let persistentProperties = ["employeeId", "name", "dateOfBirth"]   // default: all
///     static let indices = [["dateOfBirth"], ["name", "dateOfBirth"]]
///     var employeeId: Int64 = 0
///     var name = ""
///     var dateOfBirth: Date?
///     var scratch = 0                                        // not listed: never stored
///     required init() {}
/// }
/// ```
public protocol ModelDeclaration: KeyPathIndexDeclaration {
    /// Makes an instance holding the default values; Strata uses these as column defaults.
    /// ```swift
    /// required init() {}
    /// ```
    init()
    /// The table's name. Default: the type's name.
    ///
    /// ```swift
    /// static let tableName = "employees"
    /// ```
    static var tableName: String { get }
    /// The name of the primary-key property: Int64/Int (0 or nil: SQLite assigns it), String or UUID.
    /// Default: `"id"`.
    ///
    /// ```swift
    /// static let primaryKey = "employeeId"
    /// ```
    static var primaryKey: String { get }
    /// The names of the stored properties to persist, in column order. Default (and `[]`): every stored property.
    ///
    /// ```swift
    /// static let persistentProperties = ["id", "name"]
    /// ```
    static var persistentProperties: [String] { get }
    /// Indices to keep, each a list of property names. Default: none.
    ///
    /// ```swift
    /// static let indices = [["name"]]
    /// ```
    static var indices: [[String]] { get }
    /// Unique indices to keep. Default: none.
    ///
    /// ```swift
    /// static let uniqueIndices = [["email"]]
    /// ```
    static var uniqueIndices: [[String]] { get }
    /// Whether new integer keys are random 64-bit values (as FCModel does) instead of SQLite's next rowid.
    /// Default: false.
    ///
    /// ```swift
    /// static let randomKeys = true
    /// ```
    static var randomKeys: Bool { get }
    /// Rename hints: property name -> the column name it had before. When the property has no column and
    /// the old column exists, sync renames the column (`ALTER TABLE ... RENAME COLUMN`, SQLite 3.25 or
    /// later), so its data is kept; when both columns exist, sync throws a ``SchemaError``. Default: none.
    ///
    /// ```swift
    /// static let renamedColumns = ["fullName": "name"]   // `var fullName` was `var name`
    /// ```
    static var renamedColumns: [String: String] { get }
    /// Names the table had before. When the table is missing and one of these exists, sync renames it
    /// (`ALTER TABLE ... RENAME TO`; foreign keys in other tables follow); when the table and an old one
    /// both exist, or several old ones do, sync throws a ``SchemaError``. Default: none.
    ///
    /// ```swift
    /// static let tableName = "employees"
    /// static let previousTableNames = ["Employee"]
    /// ```
    static var previousTableNames: [String] { get }
    /// Whether sync may rebuild the table (SQLite's 12-step procedure) for changes additive sync cannot
    /// make: a declared column's type or NOT NULL. Default: ``SchemaRebuild/never``.
    ///
    /// ```swift
    /// static let schemaRebuild = SchemaRebuild.whenNeeded
    /// ```
    static var schemaRebuild: SchemaRebuild { get }
    /// How columns store their values when they do not use Strata's format, by property name. Needed
    /// only where Strata cannot tell by itself: for dates, UUIDs and booleans it reads the column's
    /// declared type and a stored value (see ``ColumnFormat``). Default: none.
    ///
    /// ```swift
    /// static let columnFormats: [String: ColumnFormat] = [
    ///     "createdAt": .dateTimeText(DateTimeTextStyle(separator: "T", fractionDigits: 3, zoneSuffix: "Z")),
    ///     "token": .uuidHex(uppercase: false),
    /// ]
    /// ```
    static var columnFormats: [String: ColumnFormat] { get }
    /// Properties that identify a row besides the primary key (sModel's secondary keys, such as the id a
    /// server gave the record). Saving a new instance whose values of these properties match a row
    /// updates that row instead of inserting one, and the instance takes the row's key. Default: none.
    ///
    /// ```swift
    /// static let upsertKeys = ["serverID"]
    /// ```
    static var upsertKeys: [String] { get }
    /// Column names that differ from the property names, by property name (Django's `db_column`). A
    /// ``Reference`` needs no entry when its table has a `<name>_id` or `<name>Id` column with a foreign
    /// key to the related table: that column is used by convention. Default: none.
    ///
    /// ```swift
    /// static let tableName = "music_track"
    /// static let columnNames = ["title": "track_title", "album": "album_fk"]
    /// ```
    static var columnNames: [String: String] { get }
    /// Whether the model only reads: saving or deleting one of its instances throws, and schema sync
    /// never changes its table (it must exist). Models over views are read-only unless the view has
    /// INSTEAD OF triggers. Default: false.
    ///
    /// ```swift
    /// final class OrderSummary: Model {
    ///     static let tableName = "orders"
    ///     static let isReadOnly = true
    ///     var id: Int64 = 0
    ///     var total = 0.0
    ///     required init() {}
    /// }
    /// ```
    static var isReadOnly: Bool { get }
    /// The properties of a composite primary key (a many-to-many table's, say), in the table's key order;
    /// when set, ``primaryKey`` is not used. Look rows up with a ``CompositeKey``. A ``Reference`` cannot
    /// point at such a model. Default: none.
    ///
    /// ```swift
    /// static let tableName = "post_tags"
    /// static let compositeKey = ["post_id", "tag_id"]
    /// ```
    static var compositeKey: [String] { get }
}

extension ModelDeclaration {
    /// The type's name.
    ///
    /// ```swift
    /// Employee.tableName  // "Employee"
    /// ```
    public static var tableName: String { String(describing: self) }
    /// `"id"`.
    ///
    /// ```swift
    /// Department.primaryKey  // "id"
    /// ```
    public static var primaryKey: String { "id" }
    /// `[]`: every stored property.
    ///
    /// ```swift
    /// Department.persistentProperties  // []
    /// ```
    public static var persistentProperties: [String] { [] }
    /// None.
    ///
    /// ```swift
    /// Department.indices  // []
    /// ```
    public static var indices: [[String]] { [] }
    /// None.
    ///
    /// ```swift
    /// Department.uniqueIndices  // []
    /// ```
    public static var uniqueIndices: [[String]] { [] }
    /// false.
    ///
    /// ```swift
    /// Department.randomKeys  // false
    /// ```
    public static var randomKeys: Bool { false }
    /// None.
    ///
    /// ```swift
    /// Department.renamedColumns  // [:]
    /// ```
    public static var renamedColumns: [String: String] { [:] }
    /// None.
    ///
    /// ```swift
    /// Department.previousTableNames  // []
    /// ```
    public static var previousTableNames: [String] { [] }
    /// `.never`: additive changes only.
    ///
    /// ```swift
    /// Department.schemaRebuild  // .never
    /// ```
    public static var schemaRebuild: SchemaRebuild { .never }
    /// None: formats are found from the columns.
    ///
    /// ```swift
    /// Department.columnFormats  // [:]
    /// ```
    public static var columnFormats: [String: ColumnFormat] { [:] }
    /// None: a new instance is always an INSERT.
    ///
    /// ```swift
    /// Department.upsertKeys  // []
    /// ```
    public static var upsertKeys: [String] { [] }
    /// None: every column is named after its property (or, for a reference, found by convention).
    ///
    /// ```swift
    /// Department.columnNames  // [:]
    /// ```
    public static var columnNames: [String: String] { [:] }
    /// false: the model reads and writes.
    ///
    /// ```swift
    /// Department.isReadOnly  // false
    /// ```
    public static var isReadOnly: Bool { false }
    /// None: the key is the single ``primaryKey`` property.
    ///
    /// ```swift
    /// Department.compositeKey  // []
    /// ```
    public static var compositeKey: [String] { [] }
}

/// A persistent model: a plain final class with stored properties and `required init()`.
///
/// ```swift
/// final class Department: Model {
///     var id: Int64 = 0
///     var name = ""
///     required init() {}
/// }
/// let db = try Database()
/// let sales = Department(); sales.name = "Sales"
/// try db.save(sales)                // creates the table on first use; sales.id is now 1
/// ```
public typealias Model = ModelObject & ModelDeclaration
