/// A column as the engine's catalog describes it (SQLite: `PRAGMA table_xinfo`; PostgreSQL: `pg_attribute`).
package struct ColumnInfo {
    package let name: String
    package let declaredType: String
    package let notNull: Bool
    /// The default as raw SQL text (`NULL`, `'x'`, `0`, `CURRENT_TIMESTAMP`, ...), nil when none.
    package let defaultSQL: String?
    /// 1-based position in the primary key, 0 when not part of it.
    package let primaryKeyPosition: Int
    /// 0 normal, 1 hidden (virtual tables), 2 virtual generated, 3 stored generated.
    package let hidden: Int
    /// Whether the column belongs to a STRICT table, where `ANY` means no affinity (values are stored as
    /// given) instead of NUMERIC as elsewhere (https://www.sqlite.org/stricttables.html).
    var inStrictTable = false
    /// The storage class of a column whose engine does not derive it from the declared type by SQLite's
    /// rules (PostgreSQL's `bytea` holds blobs, `boolean` integers 0 and 1 as Strata reads them): nil for SQLite.
    package var storage: Affinity?

    package init(name: String, declaredType: String, notNull: Bool, defaultSQL: String?, primaryKeyPosition: Int, hidden: Int,
                 inStrictTable: Bool = false, storage: Affinity? = nil) {
        self.name = name
        self.declaredType = declaredType
        self.notNull = notNull
        self.defaultSQL = defaultSQL
        self.primaryKeyPosition = primaryKeyPosition
        self.hidden = hidden
        self.inStrictTable = inStrictTable
        self.storage = storage
        declaredAffinity = Affinity(declaredType: declaredType)
    }

    /// The affinity SQLite's rules give ``declaredType``, found once: planning and mapping ask for a
    /// column's affinity several times per first use.
    private let declaredAffinity: Affinity

    /// Whether the column has no default but NULL: none, `DEFAULT NULL` or `DEFAULT (NULL)`.
    var defaultIsNull: Bool {
        guard let defaultSQL else { return true }
        // An ASCII default (all of them in practice) is read byte by byte, with no string made.
        var letters = 0
        for byte in defaultSQL.utf8 {
            switch byte {
            case 0x20, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x28, 0x29: continue   // whitespace, ( and )
            case 0x80...: return defaultSQL.filter { !$0.isWhitespace && $0 != "(" && $0 != ")" }.uppercased() == "NULL"
            default:
                let expected: UInt8 = letters == 0 ? 0x6E : letters == 1 ? 0x75 : 0x6C   // n, u, l, l
                guard letters < 4, byte | 0x20 == expected else { return false }
                letters += 1
            }
        }
        return letters == 4
    }

    package var affinity: Affinity {
        if let storage { return storage }
        return inStrictTable && declaredType.uppercased() == "ANY" ? .blob : declaredAffinity
    }
    package var isGenerated: Bool { hidden == 2 || hidden == 3 }
}

/// An index as `PRAGMA index_list` and `index_xinfo` describe it.
package struct IndexInfo {
    package let name: String
    package let unique: Bool
    /// `c` (CREATE INDEX), `u` (UNIQUE constraint) or `pk`.
    package let origin: String
    package let partial: Bool
    /// Key columns in order; nil for an expression.
    package let columns: [String?]
    package let descending: [Bool]
    /// Whether its CREATE INDEX names a collating sequence (`name COLLATE NOCASE`): the index then does
    /// not order by the columns' own collations.
    package var hasExplicitCollation = false
    /// The collating sequence of each key column (`BINARY`, `NOCASE`, `RTRIM` or an application's), as
    /// `index_xinfo` gives it: for the primary key's index, the key column's own collation.
    package var collations: [String] = []

    package init(name: String, unique: Bool, origin: String, partial: Bool, columns: [String?], descending: [Bool],
                 hasExplicitCollation: Bool = false, collations: [String] = []) {
        self.name = name
        self.unique = unique
        self.origin = origin
        self.partial = partial
        self.columns = columns
        self.descending = descending
        self.hasExplicitCollation = hasExplicitCollation
        self.collations = collations
    }

    /// Indices Strata made carry this prefix; no other index is ever dropped.
    static let ownedPrefix = "strata_"
    var isOwned: Bool { name.hasPrefix(IndexInfo.ownedPrefix) }
}

/// A foreign key as `PRAGMA foreign_key_list` describes it (one row per column).
package struct ForeignKeyInfo {
    /// The column in this table.
    package let from: String
    /// The parent table.
    package let table: String
    /// `ON DELETE` (`NO ACTION` when none was declared).
    package var onDelete = "NO ACTION"
    /// The parent column (nil: the parent's primary key, its `sequence`th column).
    package var to: String?
    /// The column's place in a composite foreign key (0 for a single column).
    package var sequence = 0

    package init(from: String, table: String, onDelete: String = "NO ACTION", to: String? = nil, sequence: Int = 0) {
        self.from = from
        self.table = table
        self.onDelete = onDelete
        self.to = to
        self.sequence = sequence
    }
}

/// A table's (or view's) schema as SQLite reports it (`package`: StrataTools reads it through
/// ``SQLiteIntrospector``).
package struct TableInfo {
    package let name: String
    package let columns: [ColumnInfo]
    package let indices: [IndexInfo]
    package let withoutRowID: Bool
    /// A STRICT table: a column's declared type must be INT, INTEGER, REAL, TEXT, BLOB or ANY.
    var isStrict = false
    package var foreignKeys: [ForeignKeyInfo] = []
    /// A view rather than a table.
    package var isView = false
    /// A view with INSTEAD OF triggers, which makes it writable.
    package var isWritableView = false
    /// A virtual table (`CREATE VIRTUAL TABLE … USING module`): its module, not column affinity, decides
    /// what its columns hold and how they compare.
    var isVirtual = false
    /// Whether a constraint of the table resolves conflicts by REPLACE (`UNIQUE ON CONFLICT REPLACE`, say):
    /// a plain INSERT or UPDATE would then delete the other row instead of failing.
    var replacesOnConflict = false
    /// The `CREATE TRIGGER` statements of the table's triggers (they may write other rows and tables).
    package var triggerSQL: [String] = []
    /// The statement that made the table or view, as `sqlite_master` keeps it.
    package var createSQL = ""
    /// For a shadow table of a full-text or R*Tree table (`notes_content` of FTS5 `notes`), that table's
    /// module and name, as words for an error: SQLite keeps the table's index in it, and only the virtual
    /// table may write it.
    var shadowOf: String?

    /// Column positions by lowercased name (SQLite compares column names case-insensitively): planning
    /// and mapping look columns up many times per model, and a scan with Foundation's comparison was most
    /// of a first use's cost.
    private let positions: [String: Int]

    package init(name: String, columns: [ColumnInfo], indices: [IndexInfo], withoutRowID: Bool, foreignKeys: [ForeignKeyInfo] = [],
         isView: Bool = false, isWritableView: Bool = false) {
        self.name = name
        self.columns = columns
        self.indices = indices
        self.withoutRowID = withoutRowID
        self.foreignKeys = foreignKeys
        self.isView = isView
        self.isWritableView = isWritableView
        var positions = [String: Int](minimumCapacity: columns.count)
        // (Last to first, so that the first of two columns with one name wins, with one hash each.)
        for index in columns.indices.reversed() { positions[columns[index].name.sqlFolded] = index }
        self.positions = positions
    }

    /// The name that reaches the rowid in SQL: the first of `rowid`, `_rowid_` and `oid` that no column
    /// takes (a column of that name hides the rowid); nil for a WITHOUT ROWID table, or when columns take
    /// all three names.
    ///
    /// ```swift
    /// info.rowIDName  // "_rowid_" for t(code TEXT PRIMARY KEY, rowid INTEGER)
    /// ```
    var rowIDName: String? {
        withoutRowID ? nil : ["rowid", "_rowid_", "oid"].first { column(named: $0) == nil }
    }

    /// The name that reaches the rowid of an ordinary table (not a view, a virtual or a WITHOUT ROWID
    /// table), by which a format sample also reads the last rows (``ColumnSample/statementSQL(column:table:rowID:)``).
    var sampledRowID: String? { isView || isVirtual ? nil : rowIDName }

    func column(named name: String) -> ColumnInfo? {
        positions[name.sqlFolded].map { columns[$0] }
    }

    var primaryKeyColumns: [ColumnInfo] {
        columns.filter { $0.primaryKeyPosition > 0 }.sorted { $0.primaryKeyPosition < $1.primaryKeyPosition }
    }

    /// Whether the single primary-key column is an alias of the rowid: declared exactly `INTEGER`
    /// (pitfall 9: `INT PRIMARY KEY` is not) in a rowid table.
    var keyIsRowID: Bool {
        let keys = primaryKeyColumns
        // `INTEGER PRIMARY KEY DESC` is not an alias either; SQLite then keeps a separate "pk" index.
        return !withoutRowID && keys.count == 1 && keys[0].declaredType.uppercased() == "INTEGER"
            && !indices.contains { $0.origin == "pk" }
    }

    /// Whether `column` names the table's implicit rowid (`rowid`, `oid` or `_rowid_`, when no column has
    /// that name): the key of a model over a table without a primary key.
    func isImplicitRowID(_ column: String) -> Bool {
        !withoutRowID && !isView && ["rowid", "oid", "_rowid_"].contains(column.sqlFolded) && self.column(named: column) == nil
    }
}

import Foundation

extension TableInfo {
    /// This table as it will read after `ALTER TABLE ... RENAME` to `table` and `RENAME COLUMN` of each
    /// key of `columns` to its value: what the planner checks the model against in a dry run.
    func renamed(to table: String, columns renames: [String: String]) -> TableInfo {
        func rename(_ column: String) -> String {
            renames.first { $0.key.sqlNameEquals(column) }?.value ?? column
        }
        var info = TableInfo(
            name: table,
            columns: columns.map {
                ColumnInfo(name: rename($0.name), declaredType: $0.declaredType, notNull: $0.notNull,
                           defaultSQL: $0.defaultSQL, primaryKeyPosition: $0.primaryKeyPosition, hidden: $0.hidden,
                           inStrictTable: $0.inStrictTable, storage: $0.storage)
            },
            indices: indices.map {
                IndexInfo(name: $0.name, unique: $0.unique, origin: $0.origin, partial: $0.partial,
                          columns: $0.columns.map { $0.map(rename) }, descending: $0.descending,
                          hasExplicitCollation: $0.hasExplicitCollation, collations: $0.collations)
            },
            withoutRowID: withoutRowID,
            foreignKeys: foreignKeys.map { ForeignKeyInfo(from: rename($0.from), table: $0.table, onDelete: $0.onDelete, to: $0.to, sequence: $0.sequence) },
            isView: isView, isWritableView: isWritableView)
        info.isVirtual = isVirtual
        info.isStrict = isStrict
        info.replacesOnConflict = replacesOnConflict
        info.triggerSQL = triggerSQL
        return info
    }
}
