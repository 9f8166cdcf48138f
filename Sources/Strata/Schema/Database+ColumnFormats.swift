// How a model's columns store their values when another tool made them: each column's format decided from
// its declared type and, for columns that hold rows, a sample of them (ColumnSample); formats of columns that
// were empty decided again once they hold rows; the formats of join-table columns.
extension Database {
    /// Whether `table` holds a row (one page read).
    func tableHasRows(_ table: String) throws -> Bool {
        let statement = try connection.prepare("SELECT 1 FROM \(SQL.quote(table)) LIMIT 1")
        defer { statement.finalize() }
        return try statement.step()
    }

    /// Whether some format of the handle awaits rows (``redecideFormatsOfEmptyColumns()``): a mapping's, or a
    /// join-table column's. Raw SQL that wrote rows decides them again then (it may have written the first
    /// keys, in another tool's format), as another connection's commit does.
    var formatsAwaitRows: Bool {
        !models.undecidedJoinColumns.isEmpty || models.registries.values.contains { $0.table.awaitsRows }
    }

    /// After another connection's commit (or raw SQL of this handle that wrote rows): the mappings whose formats were decided on an empty table
    /// (``TableMapping/formatsFromEmptyColumns``) are made again once it has rows, so that rows another tool wrote first
    /// decide the format (uppercase UUIDs, ISO 8601 dates) instead of the declared type alone.
    func redecideFormatsOfEmptyColumns() throws {
        // Join-table columns decided from no value are looked at again when next used (a few reads, once).
        for key in models.undecidedJoinColumns { models.joinColumnFormats.removeValue(forKey: key) }
        models.undecidedJoinColumns.removeAll()
        for registry in models.registries.values where registry.table.awaitsRows {
            // Still empty, and no table whose keys it holds has rows: nothing to decide from yet, and no sync
            // to pay for.
            var decidable = try registry.table.formatsFromEmptyColumns && tableHasRows(registry.table.table)
            for table in registry.table.keyTablesAwaited where !decidable {
                decidable = (try? tableHasRows(table)) == true   // (a table not made yet has no rows)
            }
            guard decidable else { continue }
            let mapping = try sync(registry.metadata).mapping
            if mapping.formats != registry.table.formats {
                registry.table = mapping
                models.joinColumnFormats.removeAll()   // some may have been taken from the old mapping
            } else {
                registry.table.formatsFromEmptyColumns = mapping.formatsFromEmptyColumns
                registry.table.keyTablesAwaited = mapping.keyTablesAwaited
            }
        }
    }

    /// The stored format of each property's column: the model's declaration, else for dates, UUIDs and
    /// booleans what the column's declared type and its first non-NULL value show (``ColumnFormat``);
    /// for dates, what its first 100 non-NULL values show (``ColumnSample``), in one statement. Also
    /// whether some format was decided on a column that holds no value yet (from its declared type alone).
    /// Also the tables whose keys an empty column holds while their key column shows no format yet
    /// (``TableMapping/keyTablesAwaited``).
    func columnFormats(_ metadata: ModelMetadata, _ properties: [PropertyMetadata], _ info: TableInfo) throws
        -> ([ColumnFormat], Bool, [String], hasRows: Bool?) {
        var unsampled = false
        var awaited: [String] = []
        // Whether the table has a row, asked once before the first sample (nil: not asked): an empty table's
        // columns have nothing to sample, so no sampling statement is prepared for them (a first use of an
        // in-sync model over an empty table prepared one per date column).
        var hasRows: Bool?
        let formats = try properties.map { property in
            if let declared = metadata.columnFormats[property.name] { return declared }
            guard let kind = property.formatKind, let column = info.column(named: property.column),
                  kind != .decimal || property.related == nil && (column.affinity == .text || column.affinity == .blob) else { return ColumnFormat.native }
            if !info.isView && hasRows == nil { hasRows = try tableHasRows(info.name) }
            let (format, sampled) = hasRows == false
                ? try unsampledFormat(kind, table: info.name, column: column)
                : try detectedFormat(kind, table: info.name, column: column, rowID: info.sampledRowID)
            guard sampled else {
                unsampled = true
                // A column of another table's keys holds them as its key column does (peewee's foreign key to
                // a UUID key stores uuid.hex in a TEXT column), else SQLite's foreign key finds no row.
                if let shown = try shownReferencedFormat(kind, info: info, column: column)
                    ?? property.related.flatMap({ try shownKeyFormat(of: ModelMetadata.of($0), kind: kind) }) {
                    return shown
                }
                if let parent = info.foreignKeys.first(where: { $0.from.sqlNameEquals(column.name) })?.table ?? property.related?.tableName,
                   !parent.sqlNameEquals(info.name) {
                    awaited.append(parent)
                }
                return format
            }
            return format
        }
        return (formats, unsampled, awaited, hasRows)
    }

    /// The format in which the column that `column` of `info` refers to by a foreign key holds its values,
    /// when a value there shows it; nil otherwise (no foreign key, or an empty parent column).
    func shownReferencedFormat(_ kind: ColumnFormat.Kind, info: TableInfo, column: ColumnInfo) throws -> ColumnFormat? {
        guard let key = info.foreignKeys.first(where: { $0.from.sqlNameEquals(column.name) }),
              let parent = try TableInfo.read(key.table, in: connection) else { return nil }
        let keyColumns = parent.primaryKeyColumns
        guard let target = key.to.flatMap(parent.column(named:)) ?? (key.sequence < keyColumns.count ? keyColumns[key.sequence] : nil),
              !(parent.name.sqlNameEquals(info.name) && target.name.sqlNameEquals(column.name)) else { return nil }
        let (format, sampled) = try detectedFormat(kind, table: parent.name, column: target, rowID: parent.sampledRowID)
        return sampled ? format : nil
    }

    /// The format in which `related`'s key column holds its keys, when its declaration
    /// (``ModelDeclaration/columnFormats``) or a stored key shows it; nil when its table has no key yet.
    /// What an empty column holding those keys (a reference, a join table's) takes, over its declared type's
    /// default: a key is found by its exact value.
    func shownKeyFormat(of related: ModelMetadata, kind: ColumnFormat.Kind) throws -> ColumnFormat? {
        guard related.keyCount == 1, related.key.formatKind == kind else { return nil }
        if let declared = related.columnFormats[related.key.name] { return declared }
        guard let info = try TableInfo.read(related.tableName, in: connection, views: true),
              let column = info.column(named: related.key.column) else { return nil }
        let (format, sampled) = try detectedFormat(kind, table: info.name, column: column, rowID: info.sampledRowID)
        return sampled ? format : nil
    }

    /// The format of values of `kind` in an existing column, from its declared type and its first non-NULL
    /// value (for a UUID, the first of its first 100 that has a letter, which shows the case)
    /// (``ColumnFormat/detect(_:declaredType:sample:)``), and whether the column had a value to show it.
    func detectedFormat(_ kind: ColumnFormat.Kind, table: String, column: ColumnInfo, rowID: String?) throws -> (ColumnFormat, sampled: Bool) {
        if kind == .date {
            let statement = try connection.prepare(ColumnSample.statementSQL(column: column.name, table: table, rowID: rowID))
            defer { statement.finalize() }
            guard try statement.step() else { return try unsampledFormat(kind, table: table, column: column) }
            let sample = ColumnSample(row: (0..<ColumnSample.columnCount).map { statement.value(at: Int32($0)) })
            return (ColumnFormat.detect(kind, declaredType: column.declaredType, sample: sample, defaultSQL: column.defaultSQL), sample.first != nil)
        }
        if kind == .json {
            let name = SQL.quote(column.name)
            let statement = try connection.prepare("SELECT \(name) FROM \(SQL.quote(table)) WHERE typeof(\(name)) = 'text' LIMIT \(ColumnSample.limit)")
            defer { statement.finalize() }
            var texts: [String] = []
            while try statement.step() { if case .text(let text) = statement.value(at: 0) { texts.append(text) } }
            guard texts.isEmpty else { return (JSONStyle.detect(texts), true) }
            return try unsampledFormat(kind, table: table, column: column)
        }
        if kind == .decimal {
            let statement = try connection.prepare(ColumnSample.decimalStatementSQL(column: column.name, table: table))
            defer { statement.finalize() }
            // (No non-NULL value: decided again once the table has rows.)
            guard try statement.step(), case .integer(let least) = statement.value(at: 0) else { return (.native, false) }
            var sample = ColumnSample(nil)
            sample.decimalFractionDigits = statement.value(at: 1) == .integer(least) ? Int(max(0, least)) : 0
            return (ColumnFormat.detect(kind, declaredType: column.declaredType, sample: sample), true)
        }
        let name = SQL.quote(column.name)
        // A UUID's case shows only in its letters: of the first 100 non-NULL values, one that has some
        // (`12345678-0000-…` would take an uppercase column for a lowercase one).
        let statement = try connection.prepare(kind == .uuid
            ? "SELECT v FROM (SELECT \(name) AS v FROM \(SQL.quote(table)) WHERE \(name) IS NOT NULL LIMIT \(ColumnSample.limit)) ORDER BY typeof(v) = 'text' AND v GLOB '*[a-fA-F]*' DESC LIMIT 1"
            : "SELECT \(name) FROM \(SQL.quote(table)) WHERE \(name) IS NOT NULL LIMIT 1")
        defer { statement.finalize() }
        let sample = try statement.step() ? statement.value(at: 0) : nil
        return (ColumnFormat.detect(kind, declaredType: column.declaredType, sample: sample), sample != nil)
    }

    /// The format of a column with no value to sample (an empty table, or only NULLs there): what its
    /// declared type and default say; decided again once it has rows.
    func unsampledFormat(_ kind: ColumnFormat.Kind, table: String, column: ColumnInfo) throws -> (ColumnFormat, sampled: Bool) {
        switch kind {
        case .date:
            return (ColumnFormat.detect(kind, declaredType: column.declaredType, sample: nil, defaultSQL: column.defaultSQL), false)
        case .json:
            // No JSON yet: a column Django's JSONField made (`text` with `CHECK (JSON_VALID("col") …)`) takes
            // the layout Django writes, json.dumps's, so that its exact lookups (`filter(data={…})`, text
            // equality) find Strata's rows and the column keeps one layout (decided again once it has rows).
            let sql = try SchemaCatalog.current(in: connection).tables[table.sqlFolded]?.sql ?? ""
            return (JSONStyle.declaredByDjango(column: column.name, tableSQL: sql) ? .jsonText(spaced: true, asciiOnly: true) : .native, false)
        case .decimal:
            return (.native, false)
        case .uuid, .bool:
            return (ColumnFormat.detect(kind, declaredType: column.declaredType, sample: nil), false)
        }
    }

    /// The format of a join table's column that holds the keys of `metadata`'s model (``Siblings``): the
    /// format a model of this handle that maps the column has for it (its ``ModelDeclaration/columnFormats``
    /// included), else, as for any column of the key's type, what the column's declared type and first
    /// non-NULL value show (a UUID key as 32 hex digits in Django's `char(32)`); a column with no value yet
    /// takes the format of the column its foreign key names, else of the key column it holds keys of, when
    /// that shows one (peewee's through table
    /// holds uuid.hex in TEXT columns, as the key column does). Native for keys no other tool stores
    /// otherwise (integers, text). Found once per handle and schema.
    func joinColumnFormat(table: String, column: String, holding metadata: ModelMetadata) throws -> ColumnFormat {
        guard metadata.keyCount == 1, let kind = metadata.key.formatKind, kind != .decimal else { return .native }
        let cacheKey = table.sqlFolded + "\u{0}" + column.sqlFolded
        if let known = models.joinColumnFormats[cacheKey] { return known }
        var format = ColumnFormat.native
        if let mapped = models.registries(forTable: table).lazy.compactMap({ registry -> (ColumnFormat, Bool)? in
            guard let index = registry.table.columns.firstIndex(where: { $0.sqlNameEquals(column) }),
                  registry.metadata.properties[index].formatKind == kind else { return nil }
            return (registry.table.formats[index], registry.table.awaitsRows)
        }).first {
            format = mapped.0
            if mapped.1 { models.undecidedJoinColumns.insert(cacheKey) }
        } else if !isRemote, let info = try TableInfo.read(table, in: connection), let found = info.column(named: column) {
            // (Another engine's key columns are typed: its keys are stored natively.)
            let (detected, sampled) = try detectedFormat(kind, table: info.name, column: found, rowID: info.sampledRowID)
            if sampled {
                format = detected
            } else if let shown = try shownReferencedFormat(kind, info: info, column: found) ?? shownKeyFormat(of: metadata, kind: kind) {
                format = shown
            } else {
                // From the declared type alone: decided again once this table or a key table has rows.
                format = detected
                models.undecidedJoinColumns.insert(cacheKey)
            }
        }
        models.joinColumnFormats[cacheKey] = format
        return format
    }

    /// Whether a join table's column has no type (BLOB affinity, or `ANY` in a STRICT table): an integer key there may be stored as
    /// its text ('1', which SQLite does not find by the integer), so ``Siblings`` look it up in both forms.
    /// Found once per handle and schema, from the declared type of a statement prepared and never run (so
    /// it costs no statement); false when it does not prepare (the query that follows says why).
    func joinColumnIsUntyped(table: String, column: String) -> Bool {
        let cacheKey = table.sqlFolded + "\u{0}" + column.sqlFolded
        if let known = models.joinColumnsUntyped[cacheKey] { return known }
        guard let statement = try? connection.prepare("SELECT \(SQL.quote(column)) FROM \(SQL.quote(table)) LIMIT 0") else { return false }
        defer { statement.finalize() }
        let declared = statement.declaredType(at: 0) ?? ""
        // `ANY` in a STRICT table has no affinity either (elsewhere it is NUMERIC); the catalog is read untraced.
        var untyped = Affinity(declaredType: declared) == .blob
        if !untyped && declared.uppercased() == "ANY" {
            let wasUntraced = connection.untraced
            connection.untraced = true
            defer { connection.untraced = wasUntraced }
            untyped = (try? SchemaCatalog.current(in: connection))?.tables[table.sqlFolded]
                .map { TableInfo.tableOptions($0.sql).contains("STRICT") } == true
        }
        models.joinColumnsUntyped[cacheKey] = untyped
        return untyped
    }
}
