/// How a model maps onto its table as it is: the SQL of the model's statements and the stored format of
/// each column, found once per sync.
final class TableMapping {
    let table: String
    let keyIsRowID: Bool
    let hasRowID: Bool
    /// The name that reaches the row's rowid in this table's SQL: `rowid`, or `_rowid_` or `oid` when a
    /// column of the table is itself named `rowid` (another tool's table may have one, and `rowid` then
    /// means that column). When columns take all three names the rowid cannot be read, and the table is
    /// handled as one without a rowid (``hasRowID`` false).
    let rowIDName: String
    /// Whether SELECTs add `rowid` as a last column (tables whose key is not the rowid).
    var selectsRowID: Bool { hasRowID && !keyIsRowID }
    /// `"t"."a", "t"."b", ...` in property order (plus rowid when selected).
    let selectColumns: String
    /// `SELECT <columns> FROM "table"`, the start of every fetch (built once, not per query).
    let selectFromSQL: String
    /// The `IN (...)` fetches prepared so far (``inStatement(column:count:orderBy:in:)``).
    var inStatements: [InStatementKey: Statement] = [:]
    /// The stored format of each property's column (``ColumnFormat/native`` for Strata's own).
    let formats: [ColumnFormat]
    /// Whether some format was decided from the column's declared type alone because the table had no row
    /// yet: decided again after another connection's commit once it has rows
    /// (``Database/redecideFormatsOfEmptyColumns()``).
    var formatsFromEmptyColumns = false
    /// The tables whose keys some empty column of this table holds (a reference, a foreign key) and whose
    /// key column showed no format yet: the column's format is decided again after another connection's
    /// commit once one of them has rows, so that it stores keys as they do (``Database/redecideFormatsOfEmptyColumns()``).
    var keyTablesAwaited: [String] = []
    /// On an engine other than SQLite, the columns whose type compares texts that differ as equal (`citext`,
    /// `citext[]`): the conflict guard of an update compares their text (`"c"::text IS NOT DISTINCT FROM
    /// ?::text`), so that another writer's change of case alone is a conflict too.
    var textGuardedColumns = ColumnSet()
    /// On PostgreSQL: JSON columns compare as `jsonb` values (the engine's own equality, which ignores
    /// spacing and key order), not through SQLite's `strata_json_canonical` function.
    var comparesJSONAsJSONB = false
    /// Whether some format was decided on an empty table, or awaits a key table's rows.
    var awaitsRows: Bool { formatsFromEmptyColumns || !keyTablesAwaited.isEmpty }
    /// For a column of `YYYY-MM-DD` text that is not declared `DATE` (a `DATETIME` or `TEXT` column whose
    /// sampled rows hold only days): the layout of a value with a time of day, Python's
    /// `YYYY-MM-DD HH:MM:SS[.ffffff]` (``DateTimeTextStyle/python``), so that no time is dropped
    /// (``storedDate(_:at:)``); nil elsewhere. A column declared `DATE` keeps the day: Django reads a time
    /// there as no date at all.
    let timedDateFormats: [ColumnFormat?]
    /// Properties whose column holds date text in a layout Strata found (not one the model declares): an
    /// UPDATE writes each value in the layout its own row has, where that holds it
    /// (``DateText/inRowLayout(new:old:)``).
    let rowLayoutColumns: ColumnSet
    /// What each property's value reads back as from its column, where not exactly as bound (a date in
    /// whole seconds, a `Decimal` in a `decimal` column): dirty tracking remembers that (``ReadBack``).
    let readBacks: [ReadBack?]
    /// The properties that have a ``readBacks`` entry.
    let readingBack: ColumnSet
    /// `Double` properties over a column of REAL, INTEGER or NUMERIC affinity, which stores -0.0 as the
    /// integer 0: a refresh compares their -0.0 as 0.0 (see ``TypeRegistry/refreshWord(of:at:)``).
    let foldsNegativeZero: ColumnSet
    /// The metadata's fast accessors, with nil where the column has a format of its own: what the
    /// per-row loops use, so such columns take the converting path.
    let fastFields: [FastField?]
    /// Each property's column, in property order (key first).
    let columns: [String]
    /// How many columns make the key (the first ones of ``columns``).
    let keyCount: Int
    /// `"a" = ? AND "b" = ?` over the key columns (`"id" = ?` for a single key; `"id" IN (?, ?)` when
    /// ``keyHasTwoForms``).
    let keyClause: String
    /// Whether one key may be stored in two forms that SQLite tells apart but the model reads as the same
    /// key: an integer or a text key in a column with no type (BLOB affinity), where another tool may have
    /// stored key 7 as the text '7' (or the text key "7" as the integer 7); a UUID key stored as text, which
    /// one tool writes in uppercase (Swift's `uuidString`) and another in lowercase (Python's `str`).
    /// ``keyClause`` then finds the row by either form, and ``bindKey(_:to:at:)`` binds both
    /// (``keyForms(ofStored:)``).
    let keyHasTwoForms: Bool
    /// Whether ``keyHasTwoForms`` is for a UUID stored as text (the forms are its two cases).
    let keyFormsAreCases: Bool

    /// The forms a key, as the key column stores it, may take there (itself first): with
    /// ``keyHasTwoForms``, also its other form (an integer's text, a text's integer, a UUID text in the other
    /// case), when it has one.
    func keyForms(ofStored stored: SQLValue) -> [SQLValue] {
        guard keyHasTwoForms else { return [stored] }
        guard keyFormsAreCases else { return stored.keyForms(untypedColumn: true) }
        guard case .text(let text) = stored else { return [stored] }
        let other = text.lowercased() == text ? text.uppercased() : text.lowercased()
        return other == text ? [stored] : [stored, .text(other)]
    }
    /// How SQLite compares values of a single-column key that is not the rowid (its primary key index's
    /// collating sequence): what a foreign key to it, a child's or a join table's column, matches by.
    let keyCollation: KeyCollation
    /// A view (writable through INSTEAD OF triggers, or read-only).
    let isView: Bool
    /// Why saves and deletes are refused (a read-only model, a view without INSTEAD OF triggers); nil
    /// when the model writes.
    let readOnlyReason: String?
    /// A view whose key is not shown unique (``ViewKey``): each fetch makes fresh objects, registered
    /// nowhere, so that two rows sharing a key are never one instance; its model is read-only.
    let readsWithoutIdentity: Bool
    /// A single text key over a column of numeric affinity (``textTurnsNumeric(_:_:)``): an insert refuses
    /// a key that SQLite would store as a number.
    let keyTextBecomesNumber: Bool

    /// Whether `property` is plain text over a column whose affinity stores a numeral as a number.
    static func textTurnsNumeric(_ property: PropertyMetadata, _ column: ColumnInfo) -> Bool {
        property.columnType == .text && property.formatKind == nil && property.related == nil
            && [.numeric, .integer, .real].contains(column.affinity)
    }
    /// Properties over generated columns: read, never written.
    let generated: ColumnSet
    /// Properties whose column is NOT NULL: a reference the insertion of a cycle would leave unset there
    /// cannot be inserted (``Database/save(_:registry:)-(InsertionOrder,_)``), which is told before any write.
    let notNullColumns: ColumnSet
    /// Properties (not of the key) whose column has INTEGER affinity and is stored natively, in an ordinary
    /// table (not a view, not a virtual table): a fetch by a list of their integer values can scan the table
    /// (``rangeStatement(column:orderBy:in:)``) and test membership itself.
    let integerColumns: ColumnSet
    /// Properties whose column has no type (BLOB affinity): SQLite tells the text '1' there from the integer
    /// 1, which a reference reads as the same key, so lookups by an integer key bind both
    /// (``SQLValue/keyForms(untypedColumn:)``).
    let untypedColumns: ColumnSet
    /// `Decimal` properties over a column of TEXT or BLOB affinity (Strata's own TEXT, another tool's
    /// `varchar`), which holds their digits as text ('12.30', '9.5'): key-path conditions and orders compare
    /// them as numbers (``comparedColumn(_:)``), not as text, where '9.5' > '10' and '12.30' <> '12.3'.
    let numericTextColumns: ColumnSet
    /// Properties whose column starts an index (or the primary key): a fetch by a few of their values
    /// searches it rather than scan.
    let indexedColumns: ColumnSet
    /// Properties whose column has a DEFAULT of its own (one Strata did not derive from `init()`): an
    /// insert leaves them to the DEFAULT while they hold their `init()` value.
    let schemaDefaults: [Int]
    /// NOT NULL columns without a default that the model does not map: an insert cannot fill them.
    let requiredColumns: [String]
    /// `INSERT` and `UPDATE` as the library writes them: `INSERT OR ABORT` / `UPDATE OR ABORT` over a table
    /// whose constraints resolve conflicts by REPLACE, so that a save fails with a UNIQUE error instead of
    /// deleting the row it collides with (a plain statement elsewhere: an `OR` clause would also override
    /// the conflict clauses of the statements in the table's triggers).
    let insertVerb: String, updateVerb: String
    /// The `CREATE TRIGGER` statements of the table's triggers.
    let triggerSQL: [String]
    /// Whether a trigger of the table may REPLACE rows (its SQL says the word): a write here may then remove
    /// rows elsewhere without an update-hook report.
    let triggersMayReplace: Bool
    /// Whether the table has a trigger that fires on INSERT: it may rewrite the new row (an AFTER INSERT
    /// trigger that stamps or normalizes a column), which neither the values bound nor `RETURNING` show, and
    /// which the update hook reports before the new instance is registered: an insert reads its row back.
    let hasInsertTriggers: Bool
    /// Whether the table has a trigger that fires on UPDATE, or on DELETE.
    let hasUpdateTriggers: Bool, hasDeleteTriggers: Bool
    /// The table's name, lowercased (as SQLite compares names, for ASCII).
    let lowercasedName: String
    /// The tables the table's foreign keys point at (lowercased): a delete there may cascade here.
    let parentTables: Set<String>
    /// Whether a trigger of the table may write `table` (its SQL mentions the name, in any case).
    func triggersMayWrite(_ table: String) -> Bool {
        let name = table.sqlFolded
        return triggerSQL.contains { $0.sqlFolded.contains(name) }
    }

    /// The quoted column of property `index` as key-path conditions and orders compare it: a `Decimal` in a
    /// column that holds text (``numericTextColumns``) as `CAST(column AS NUMERIC)`, a number (about 15
    /// significant digits, as a NUMERIC column keeps them), whose NUMERIC affinity also turns the bound text
    /// of the compared values into numbers.
    func comparedColumn(_ index: Int) -> String {
        let quoted = SQL.quote(columns[index])
        return numericTextColumns.contains(index) ? "CAST(\(quoted) AS NUMERIC)" : quoted
    }

    /// Whether an insert takes the general path (``insertStatement(_:in:)``): some columns are generated or
    /// have schema defaults.
    var insertsReturningRow: Bool { !generated.isEmpty || !schemaDefaults.isEmpty }

    let quotedTable: String
    /// The table as the FROM clause of a fetch names it.
    let quotedFromTable: String
    let quotedNames: [String]
    /// UPDATE statements by the set of properties they write, with the most recent one first in line.
    @exclusivity(unchecked) var updates: [ColumnSet: Statement] = [:]
    /// The per-row statements by ``StatementKind`` (TableMapping+Statements.swift), prepared on first use.
    @exclusivity(unchecked) var statements = [Statement?](repeating: nil, count: StatementKind.allCases.count)
    /// The most recent of `updates` (which keeps it alive), unretained: a run of saves of one column takes
    /// it with no reference counting.
    @exclusivity(unchecked) var lastUpdate: (columns: ColumnSet, statement: Unmanaged<Statement>)?

    /// The mapping of `metadata` onto `info`, with `properties` as ``SchemaPlanner/resolveColumns(_:)``
    /// resolved them.
    /// `unprovenViewKey`: for a view whose key ``ViewKey`` could not show unique, why not; its rows are
    /// then read without identity.
    init(metadata: ModelMetadata, properties: [PropertyMetadata], info: TableInfo, formats: [ColumnFormat],
         unprovenViewKey: String? = nil) {
        table = metadata.tableName
        keyIsRowID = info.keyIsRowID || (metadata.keyCount == 1 && info.isImplicitRowID(properties[0].column))
        let rowIDName = info.rowIDName
        self.rowIDName = rowIDName ?? "rowid"
        hasRowID = !info.withoutRowID && rowIDName != nil
        self.formats = formats
        fastFields = zip(metadata.fastFields, formats).map { $1 == .native ? $0 : nil }
        // Each property's column, looked up once (the loops below ask for it several times each).
        let infoColumns = properties.map { info.column(named: $0.column) }
        var readingBack = ColumnSet(), foldsNegativeZero = ColumnSet(), rowLayoutColumns = ColumnSet()
        let timedDateFormats = properties.indices.map { i -> ColumnFormat? in
            guard properties[i].formatKind == .date, metadata.columnFormats[properties[i].name] == nil else { return nil }
            switch formats[i] {
            case .dateText, .dateTimeText: rowLayoutColumns.insert(i)
            default: return nil
            }
            guard formats[i] == .dateText, let column = infoColumns[i],
                  column.declaredType.uppercased().filter({ !$0.isWhitespace }) != "DATE" else { return nil }
            return .dateTimeText(.python)
        }
        self.timedDateFormats = timedDateFormats
        self.rowLayoutColumns = rowLayoutColumns
        readBacks = properties.indices.map { i in
            guard let column = infoColumns[i] else { return nil }
            let affinity = column.affinity
            switch metadata.fastFields[i] {
            case .double?, .optionalDouble?:
                if affinity == .real || affinity == .integer || affinity == .numeric { foldsNegativeZero.insert(i) }
            default: break
            }
            // A date is compared as the most precise layout the column takes keeps it (a time of day too).
            let readBack = ReadBack.of(properties[i].formatKind, format: timedDateFormats[i] ?? formats[i], affinity: affinity,
                                       isRawValue: properties[i].isRawValue)
            if readBack != nil { readingBack.insert(i) }
            return readBack
        }
        self.readingBack = readingBack
        self.foldsNegativeZero = foldsNegativeZero
        columns = properties.map(\.column)
        keyCount = metadata.keyCount
        keyCollation = keyIsRowID || metadata.keyCount != 1 ? .binary
            : info.indices.first { $0.origin == "pk" && $0.columns.count == 1 && $0.columns[0]?.sqlNameEquals(properties[0].column) == true }
                .flatMap { $0.collations.first }.map(KeyCollation.init(name:)) ?? .binary
        isView = info.isView
        insertVerb = info.replacesOnConflict ? "INSERT OR ABORT" : "INSERT"
        updateVerb = info.replacesOnConflict ? "UPDATE OR ABORT" : "UPDATE"
        triggerSQL = info.triggerSQL
        triggersMayReplace = info.triggerSQL.contains { SQL.mentions($0, "replace") }
        hasInsertTriggers = info.triggerSQL.contains { Self.fires($0, on: "INSERT") }
        hasUpdateTriggers = info.triggerSQL.contains { Self.fires($0, on: "UPDATE") }
        hasDeleteTriggers = info.triggerSQL.contains { Self.fires($0, on: "DELETE") }
        lowercasedName = metadata.tableName.sqlFolded
        parentTables = Set(info.foreignKeys.map { $0.table.sqlFolded })
        readsWithoutIdentity = unprovenViewKey != nil
        keyTextBecomesNumber = metadata.keyCount == 1 && !info.isView
            && infoColumns[0].map { Self.textTurnsNumeric(properties[0], $0) } == true
        readOnlyReason = metadata.isReadOnly ? "the model is read-only (isReadOnly)"
            : info.shadowOf.map { "its table \"\(info.name)\" is a shadow table of \($0), which keeps that table's index: write through \($0)" }
            ?? unprovenViewKey.map { "its table \"\(info.name)\" is a view whose key is not shown unique (\($0)), so its rows are read as fresh objects, without identity" }
            ?? (info.isView && !info.isWritableView ? "its table \"\(info.name)\" is a view without INSTEAD OF triggers" : nil)
        var generated = ColumnSet(), schemaDefaults: [Int] = [], notNullColumns = ColumnSet()
        for (i, property) in properties.enumerated() {
            guard let column = infoColumns[i] else { continue }
            if column.notNull { notNullColumns.insert(i) }
            if column.isGenerated { generated.insert(i); continue }
            // (The key too, when it is not an integer: a text key with a DEFAULT such as a random hex id.)
            // `DEFAULT NULL` is none: a non-optional property's initial value is written, not NULL.
            if i > 0 || (metadata.keyCount == 1 && !metadata.keyIsInteger), let sql = column.defaultSQL, !column.defaultIsNull, !info.isView,
               !Self.default(sql, is: property.defaultValue) { schemaDefaults.append(i) }
        }
        self.generated = generated
        self.notNullColumns = notNullColumns
        self.schemaDefaults = schemaDefaults
        var integerColumns = ColumnSet(), indexedColumns = ColumnSet(), untypedColumns = ColumnSet(), numericTextColumns = ColumnSet()
        // (A column starts an index or the primary key: a table has few of either, so a list, not a set.)
        let leading = info.indices.compactMap { $0.columns.first ?? nil }
        for (i, property) in properties.enumerated() {
            guard let column = infoColumns[i] else { continue }
            if column.primaryKeyPosition == 1 || leading.contains(where: { $0.sqlNameEquals(column.name) }) { indexedColumns.insert(i) }
            if !info.isView && !info.isVirtual && i >= metadata.keyCount && formats[i] == .native && column.affinity == .integer { integerColumns.insert(i) }
            if column.affinity == .blob { untypedColumns.insert(i) }
            if property.formatKind == .decimal, property.related == nil, column.affinity == .text || column.affinity == .blob {
                numericTextColumns.insert(i)
            }
        }
        self.integerColumns = integerColumns
        self.numericTextColumns = numericTextColumns
        self.untypedColumns = untypedColumns
        self.indexedColumns = indexedColumns
        // (The set of mapped names only when some column could be required: rare.)
        let unfilled = info.columns.filter { $0.notNull && $0.defaultSQL == nil && $0.primaryKeyPosition == 0 && !$0.isGenerated }
        if unfilled.isEmpty {
            requiredColumns = []
        } else {
            let mapped = Set(columns.map { $0.sqlFolded })
            requiredColumns = unfilled.filter { !mapped.contains($0.name.sqlFolded) }.map(\.name)
        }
        let t = SQL.quote(table)
        quotedTable = t
        let names = columns.map(SQL.quote)
        quotedNames = names
        let untypedKey = metadata.keyCount == 1 && !keyIsRowID && formats[0] == .native && untypedColumns.contains(0)
            && (metadata.keyIsInteger || (properties[0].columnType == .text && properties[0].formatKind == nil))
        var uuidTextKey = false
        if metadata.keyCount == 1 && properties[0].formatKind == .uuid && properties[0].related == nil {
            switch formats[0] {
            case .native, .uuidDashed, .uuidHex: uuidTextKey = true
            default: break
            }
        }
        keyHasTwoForms = untypedKey || uuidTextKey
        keyFormsAreCases = uuidTextKey
        keyClause = keyHasTwoForms ? "\(names[0]) IN (?, ?)" : names.prefix(keyCount).map { "\($0) = ?" }.joined(separator: " AND ")
        // (Made as bytes: a string per column, joined, or appends to a string, cost more than the rest of a
        // mapping.)
        var listed = names
        if hasRowID && !keyIsRowID { listed.append(self.rowIDName) }
        var select: [UInt8] = []
        select.reserveCapacity(listed.reduce(0) { $0 + $1.utf8.count + t.utf8.count + 3 })
        for name in listed {
            if !select.isEmpty {
                select.append(UInt8(ascii: ","))
                select.append(UInt8(ascii: " "))
            }
            select.append(contentsOf: t.utf8)
            select.append(UInt8(ascii: "."))
            select.append(contentsOf: name.utf8)
        }
        let selectText = String(decoding: select, as: UTF8.self)
        selectColumns = selectText
        quotedFromTable = t
        selectFromSQL = "SELECT " + selectText + " FROM " + t
    }

    /// Whether a `CREATE TRIGGER` statement's event is `event` (INSERT, UPDATE or DELETE, as in
    /// `... [BEFORE|AFTER|INSTEAD OF] INSERT ON t`): the keyword before the first ON.
    static func fires(_ triggerSQL: String, on event: String) -> Bool {
        guard SQL.mentions(triggerSQL, event.lowercased()) else { return false }
        for token in SQLTokenizer.tokens(triggerSQL) where token.kind == .word {
            if token.isKeyword("ON") { return false }
            if token.isKeyword(event) { return true }
        }
        return false
    }

    /// Whether a column's DEFAULT (as `PRAGMA table_xinfo` gives it) is the literal of `value`: the ones
    /// Strata writes itself from `init()`, and the same number or text spelled another way.
    static func `default`(_ sql: String, is value: SQLValue) -> Bool {
        // The literals Strata writes, compared without making them (most columns have one).
        switch value {
        case .integer(let v) where Int64(sql) == v: return true
        case .text(let s) where sql.utf8.count == s.utf8.count + 2 && sql.utf8.first == UInt8(ascii: "'")
            && sql.utf8.last == UInt8(ascii: "'") && sql.utf8.dropFirst().dropLast().elementsEqual(s.utf8)
            && !s.utf8.contains(UInt8(ascii: "'")):
            return true
        default: break
        }
        if sql == SQL.literal(value) { return true }
        var text = Substring(sql)
        while text.hasPrefix("("), text.hasSuffix(")") { text = text.dropFirst().dropLast() }
        switch value {
        case .integer(let v): return Double(text) == Double(v)
        case .real(let d): return Double(text) == d
        case .null: return text.uppercased() == "NULL"
        default: return false
        }
    }
}

extension TableMapping {
    /// The value to bind for date property `i` (`native`: seconds since 1970) in its column's format: for a
    /// column of `YYYY-MM-DD` text with a ``timedDateFormats`` entry, the day when that is the whole value,
    /// else the value with its time in that layout.
    func storedDate(_ native: SQLValue, at i: Int) throws -> SQLValue {
        let day = try formats[i].stored(native)
        guard let timed = timedDateFormats[i], try formats[i].native(day) != timed.quantized(native) else { return day }
        return try timed.stored(native)
    }
}

/// Which `IN (...)` fetch a statement is.
struct InStatementKey: Hashable {
    let column: String
    let count: Int
    let orderBy: String?
}
