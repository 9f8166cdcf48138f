import Strata

/// One column, as `PRAGMA table_xinfo` describes it.
///
/// ```swift
/// let column = ColumnSchema(name: "title", declaredType: "varchar(80)", notNull: true, defaultSQL: "''")
/// column.affinity   // .text
/// ```
public struct ColumnSchema: Sendable, Hashable, Encodable {
    /// The column's name.
    ///
    /// ```swift
    /// column.name  // "title"
    /// ```
    public var name: String
    /// The declared type as written (`""` when none).
    ///
    /// ```swift
    /// column.declaredType  // "varchar(80)"
    /// ```
    public var declaredType: String
    /// Declared NOT NULL.
    ///
    /// ```swift
    /// column.notNull  // true
    /// ```
    public var notNull: Bool
    /// The default as SQL text (`'x'`, `0`, `CURRENT_TIMESTAMP`), nil when none.
    ///
    /// ```swift
    /// column.defaultSQL  // "''"
    /// ```
    public var defaultSQL: String?
    /// 1-based position in the primary key, 0 when not part of it.
    ///
    /// ```swift
    /// column.primaryKeyPosition  // 0
    /// ```
    public var primaryKeyPosition: Int
    /// 0 normal, 1 hidden (virtual tables), 2 generated VIRTUAL, 3 generated STORED.
    ///
    /// ```swift
    /// column.hidden  // 0
    /// ```
    public var hidden: Int
    /// How many sampled rows hold each storage class here (``TableSchema/sampleValues(in:)``); nil when
    /// not sampled.
    var storedTypes: StoredTypes?
    /// Whose type names ``declaredType`` holds: SQLite's (read by affinity) or PostgreSQL's own.
    var engineTypes = EngineTypes.sqlite

    /// The engine whose type names a column's declared type uses.
    ///
    /// ```swift
    /// ColumnSchema.EngineTypes.postgres
    /// ```
    package enum EngineTypes: Sendable {
        /// SQLite's: any text, read by affinity.
        case sqlite
        /// PostgreSQL's `format_type` names: `bigint`, `timestamp with time zone`, `text[]`.
        case postgres
    }

    /// What `strata inspect --json` writes.
    private enum CodingKeys: String, CodingKey {
        case name, declaredType, notNull, defaultSQL, primaryKeyPosition, hidden
    }

    /// Makes a column description.
    /// ```swift
    /// ColumnSchema(name: "id", declaredType: "INTEGER", primaryKeyPosition: 1)
    /// ```
    public init(name: String, declaredType: String, notNull: Bool = false, defaultSQL: String? = nil,
                primaryKeyPosition: Int = 0, hidden: Int = 0) {
        self.name = name
        self.declaredType = declaredType
        self.notNull = notNull
        self.defaultSQL = defaultSQL
        self.primaryKeyPosition = primaryKeyPosition
        self.hidden = hidden
    }

    /// SQLite's affinity for the declared type.
    ///
    /// ```swift
    /// ColumnSchema(name: "b", declaredType: "bool").affinity  // .numeric
    /// ```
    public var affinity: Affinity { Affinity(declaredType: declaredType) }
    /// A generated column (VIRTUAL or STORED).
    ///
    /// ```swift
    /// column.isGenerated  // false
    /// ```
    public var isGenerated: Bool { hidden == 2 || hidden == 3 }
}

/// The storage classes sampled rows of a column hold: how many of each (`typeof`).
struct StoredTypes: Sendable, Hashable {
    /// SQLite's storage classes, as `typeof` names them, in the order of `counts`.
    static let classes = ["integer", "real", "text", "blob", "null"]
    /// Rows per class, in the order of ``classes``.
    var counts: [Int]

    /// The classes other than NULL that some sampled row holds: `["integer", "real"]`.
    var values: [String] { zip(Self.classes, counts).filter { $0.0 != "null" && $0.1 > 0 }.map(\.0) }
    /// Whether some sampled row holds NULL.
    var hasNull: Bool { counts[4] > 0 }
}

/// One index, as `PRAGMA index_list` and `index_xinfo` describe it.
///
/// ```swift
/// let index = IndexSchema(name: "note_created", columns: ["created"])
/// index.isPlain   // true
/// ```
/// A single-column foreign key of a table.
///
/// ```swift
/// let key = ForeignKeySchema(column: "author_id", table: "author")
/// ```
public struct ForeignKeySchema: Sendable, Hashable, Encodable {
    /// The column in the child table.
    ///
    /// ```swift
    /// key.column  // "author_id"
    /// ```
    public var column: String
    /// The parent table.
    ///
    /// ```swift
    /// key.table  // "author"
    /// ```
    public var table: String
    /// The parent column; nil when the key names only the table (its primary key).
    ///
    /// ```swift
    /// key.parentColumn   // "id"
    /// ```
    public var parentColumn: String?

    /// A foreign key from parts.
    ///
    /// ```swift
    /// let key = ForeignKeySchema(column: "author_id", table: "author", parentColumn: "id")
    /// ```
    public init(column: String, table: String, parentColumn: String? = nil) {
        self.column = column
        self.table = table
        self.parentColumn = parentColumn
    }
}

/// A CHECK constraint of a table, as its `CREATE TABLE` statement writes it.
///
/// ```swift
/// let check = CheckSchema(expression: "price > 0", column: "price")
/// ```
public struct CheckSchema: Sendable, Hashable, Encodable {
    /// The expression between the parentheses, as written.
    ///
    /// ```swift
    /// check.expression  // "price > 0"
    /// ```
    public var expression: String
    /// The column whose definition holds it; nil for a table constraint (`CHECK (a < b)` after the columns).
    ///
    /// ```swift
    /// check.column  // "price"
    /// ```
    public var column: String?
    /// Its name (`CONSTRAINT positive CHECK (...)`); nil when it has none.
    ///
    /// ```swift
    /// check.name  // "positive"
    /// ```
    public var name: String?

    /// A check from parts.
    ///
    /// ```swift
    /// let check = CheckSchema(expression: "a < b", name: "ordered")
    /// ```
    public init(expression: String, column: String? = nil, name: String? = nil) {
        self.expression = expression
        self.column = column
        self.name = name
    }
}

public struct IndexSchema: Sendable, Hashable, Encodable {
    /// The index's name (`sqlite_autoindex_…` for constraint indices).
    ///
    /// ```swift
    /// index.name
    /// ```
    public var name: String
    /// Key columns in order; nil for an expression.
    ///
    /// ```swift
    /// index.columns  // ["priority", "created"]
    /// ```
    public var columns: [String?]
    /// Whether each key column is DESC.
    ///
    /// ```swift
    /// index.descending  // [false, false]
    /// ```
    public var descending: [Bool]
    /// A UNIQUE index.
    ///
    /// ```swift
    /// index.unique  // false
    /// ```
    public var unique: Bool
    /// `c` (CREATE INDEX), `u` (UNIQUE constraint) or `pk` (PRIMARY KEY constraint).
    ///
    /// ```swift
    /// index.origin  // "c"
    /// ```
    public var origin: String
    /// Has a WHERE clause.
    ///
    /// ```swift
    /// index.partial  // false
    /// ```
    public var partial: Bool

    /// Makes an index description.
    ///
    /// ```swift
    /// IndexSchema(name: "u_email", columns: ["email"], unique: true)
    /// ```
    public init(name: String, columns: [String?], descending: [Bool]? = nil, unique: Bool = false,
                origin: String = "c", partial: Bool = false) {
        self.name = name
        self.columns = columns
        self.descending = descending ?? columns.map { _ in false }
        self.unique = unique
        self.origin = origin
        self.partial = partial
    }

    /// An explicit `CREATE INDEX` on plain ascending columns with no WHERE clause: what a model's
    /// `indices` / `uniqueIndices` can declare.
    ///
    /// ```swift
    /// index.isPlain
    /// ```
    public var isPlain: Bool {
        origin == "c" && !partial && !columns.isEmpty && !columns.contains(nil) && !descending.contains(true)
    }
}

extension SQLValue {
    /// The text of a TEXT value (numbers as written), nil for NULL and BLOB.
    var schemaText: String? {
        switch self {
        case .text(let s): s
        case .integer(let i): String(i)
        case .real(let d): String(d)
        case .null, .blob: nil
        }
    }

    /// The integer of an INTEGER value, nil otherwise.
    var schemaInteger: Int64? {
        if case .integer(let i) = self { i } else { nil }
    }
}
