// Observation of a handle on another engine (PostgreSQL), which has no update hook: what the library's own
// saves wrote is recorded by key as they run; what anything else in the transaction wrote (raw SQL, a
// cascade, a trigger) is found from the engine's per-transaction write counters, read before the first
// write and again before COMMIT. Delivered after COMMIT to the same observers as SQLite's hooks feed.

/// What one transaction on another engine wrote so far, for observers.
struct RemoteChangeLog {
    /// Whether this transaction records: someone observed the handle when it began.
    var observing = false
    /// The engine's write counters at the transaction's first write (nil until then).
    var baseline: [String: WriteCounts]?
    /// The library's own writes per table (folded name), which the counters' movement is compared with.
    var own: [String: WriteCounts] = [:]
    /// Tables raw SQL emptied (`TRUNCATE`, which the counters do not count), and whether a statement wrote
    /// tables no one can name (TRUNCATE … CASCADE).
    var truncated: Set<String> = []
    var unknownTables = false
    /// Set while a statement that cannot run in a transaction block runs alone.
    var runsAlone = false
    /// Per open savepoint: the recorded changes and counts when it began (a rollback to it brings them back),
    /// and the engine's counters then (nil when nothing was written before it). The engine counts the rows
    /// of a rolled-back savepoint too: the baseline moves past them.
    var savepoints: [Mark] = []
    struct Mark {
        var changes: [String: DatabaseChange]
        var own: [String: WriteCounts]
        var truncated: Set<String>
        var unknown: Bool
        var counters: [String: WriteCounts]?
    }
}

extension Database {
    /// Whether commits of this handle are observed now (a pool's writer: whether any stream listens).
    var remoteObserved: Bool { !models.observers.isEmpty && (remoteObservationWanted?() ?? true) }

    /// A transaction or savepoint began: a new log, or a mark to roll back to.
    func remoteLogBegan<C: RemoteConnection>(_ remote: C, nested: Bool) throws {
        if nested {
            guard models.remoteLog.observing else { return }
            let log = models.remoteLog
            let counters = log.baseline == nil ? nil : try mapped(remote) { try remote.writeCounts() }
            models.remoteLog.savepoints.append(.init(changes: models.transactionChanges, own: log.own, truncated: log.truncated,
                                                     unknown: log.unknownTables, counters: counters))
        } else {
            models.transactionChanges.removeAll()
            models.remoteLog = RemoteChangeLog(observing: remoteObserved)
        }
    }

    /// A savepoint was released: its changes belong to the enclosing level.
    func remoteLogReleased() {
        if models.remoteLog.observing, !models.remoteLog.savepoints.isEmpty { models.remoteLog.savepoints.removeLast() }
    }

    /// The transaction (`nested`: the innermost savepoint) rolled back: what it recorded is gone, and the
    /// rows the engine counted meanwhile are left out of the comparison at COMMIT.
    func remoteLogRolledBack<C: RemoteConnection>(_ remote: C, nested: Bool) {
        guard models.remoteLog.observing else { return }
        if nested, let mark = models.remoteLog.savepoints.popLast() {
            models.transactionChanges = mark.changes
            models.remoteLog.own = mark.own
            models.remoteLog.truncated = mark.truncated
            models.remoteLog.unknownTables = mark.unknown
            if let before = mark.counters, var baseline = models.remoteLog.baseline {
                // (Unreadable counters: the tables they would clear stay reported, rows unknown.)
                if let now = try? remote.writeCounts() {
                    for (table, counts) in now {
                        let then = before[table] ?? WriteCounts()
                        var base = baseline[table] ?? WriteCounts()
                        base.inserted += counts.inserted - then.inserted
                        base.updated += counts.updated - then.updated
                        base.deleted += counts.deleted - then.deleted
                        baseline[table] = base
                    }
                    models.remoteLog.baseline = baseline
                }
            } else if mark.counters == nil {
                // Nothing was written before the savepoint: the next write reads the counters afresh.
                models.remoteLog.baseline = nil
            }
        } else if !nested {
            models.transactionChanges.removeAll()
            models.remoteLog = RemoteChangeLog()
        }
    }

    /// Before a statement that may write: the first one of an observed transaction reads the counters.
    func remoteWillWrite<C: RemoteConnection>(_ remote: C) throws {
        guard models.remoteLog.observing, models.remoteLog.baseline == nil, remote.isInTransaction else { return }
        models.remoteLog.baseline = try mapped(remote) { try remote.writeCounts() }
    }

    /// A raw statement that may write ran: `TRUNCATE` empties tables without moving the counters, so the
    /// tables it names are recorded (with `CASCADE`, tables it does not name too: every table is reported
    /// then, rows unknown).
    func remoteNoteRawWrite(_ sql: String) {
        guard models.remoteLog.observing, SQL.leadingWords(sql, count: 1).first == "truncate" else { return }
        guard let names = Self.truncatedTables(sql) else { models.remoteLog.unknownTables = true; return }
        models.remoteLog.truncated.formUnion(names)
    }

    /// The tables of a plain `TRUNCATE [TABLE] [ONLY] a [*], "B" …` (options after them allowed, but not
    /// CASCADE), or nil when it cascades or is not that plain. A schema-qualified name counts by its table.
    static func truncatedTables(_ sql: String) -> [String]? {
        var tokens: [String] = []   // bare words lowercased, quoted names as written, punctuation alone
        var characters = Substring(sql)
        while let first = characters.first {
            if first.isWhitespace { characters.removeFirst(); continue }
            if first == "\"" {
                var name = "", rest = characters.dropFirst()
                while let c = rest.first {
                    rest.removeFirst()
                    if c == "\"" {
                        if rest.first == "\"" { name.append(c); rest.removeFirst() } else { break }
                    } else { name.append(c) }
                }
                tokens.append("\"" + name)
                characters = rest
            } else if first.isLetter || first == "_" {
                let word = characters.prefix { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "$" }
                tokens.append(word.lowercased())
                characters = characters.dropFirst(word.count)
            } else {
                tokens.append(String(first))
                characters.removeFirst()
            }
        }
        guard tokens.first == "truncate", !tokens.contains("cascade") else { return nil }
        var names: [String] = [], index = 1
        if tokens.count > index, tokens[index] == "table" { index += 1 }
        let ends: Set<String> = ["restart", "continue", "restrict", ";"]
        var current: String?
        while index < tokens.count, !ends.contains(tokens[index]) {
            let token = tokens[index]
            index += 1
            switch token {
            case "only", "*", ".": continue
            case ",": if let name = current { names.append(name); current = nil }
            default: current = token.hasPrefix("\"") ? String(token.dropFirst()) : token   // (after a dot: the table)
            }
        }
        if let name = current { names.append(name) }
        return names.isEmpty ? nil : names
    }

    /// One of the library's own writes of a row. `key`: the row's key (nil for a composite key, which no
    /// single value names: the table's rows are reported unknown); `properties`: the names an update wrote.
    func remoteRecord(_ registry: TypeRegistry, _ operation: RowOperation, key: SQLValue?, properties: [String] = []) {
        guard models.remoteLog.observing else { return }
        let table = registry.metadata.tableName
        let folded = table.sqlFolded
        var counts = models.remoteLog.own[folded] ?? WriteCounts()
        switch operation {
        case .insert: counts.inserted += 1
        case .update: counts.updated += 1
        case .delete: counts.deleted += 1
        }
        models.remoteLog.own[folded] = counts
        switch key {
        case .integer(let rowID)?:
            models.record(table: table, operation: operation, rowID: rowID, own: true)
            if operation == .update { models.recordProperties(properties, table: table, rowID: rowID) }
        case let key? where registry.metadata.keyCount == 1:
            var change = models.transactionChanges[folded] ?? models.newChange(table)
            switch operation {
            case .insert: change.insertedKeys.insert(key)
            case .update: if !change.insertedKeys.contains(key) { change.updatedKeys.insert(key) }
            case .delete:
                change.deletedKeys.insert(key)
                change.insertedKeys.remove(key)
                change.updatedKeys.remove(key)
            }
            models.transactionChanges[folded] = change
        default:
            models.recordTable(table)
        }
    }

    /// Before COMMIT: the tables whose counters moved beyond the library's own writes were also written by
    /// something else; they are reported with rows unknown.
    func remoteLogClosing<C: RemoteConnection>(_ remote: C) throws {
        let log = models.remoteLog
        guard log.observing else { return }
        for table in log.truncated { models.recordTable(table) }
        if log.unknownTables {
            for registries in models.registriesByTable.values { if let first = registries.first { models.recordTable(first.metadata.tableName) } }
        }
        guard let baseline = log.baseline else { return }
        let now = try mapped(remote) { try remote.writeCounts() }
        for (table, counts) in now {
            let before = baseline[table] ?? WriteCounts()
            let own = log.own[table.sqlFolded] ?? WriteCounts()
            if counts.inserted - before.inserted > own.inserted || counts.updated - before.updated > own.updated
                || counts.deleted - before.deleted > own.deleted {
                models.recordTable(table)
            }
        }
    }

    /// After a statement that ran outside any transaction (it cannot run in one): every table the handle
    /// maps is reported changed, rows unknown.
    func remoteReportEveryTable() {
        let saved = models.transactionChanges
        models.transactionChanges.removeAll()
        for registries in models.registriesByTable.values { if let first = registries.first { models.recordTable(first.metadata.tableName) } }
        models.remoteLog.observing = true
        remoteLogCommitted()
        models.transactionChanges = saved
    }

    /// After COMMIT: the observers hear of what the transaction changed.
    func remoteLogCommitted() {
        guard models.remoteLog.observing else { return }
        models.remoteLog = RemoteChangeLog()
        guard !models.transactionChanges.isEmpty else { return }
        let changes = Array(models.transactionChanges.values)
        models.transactionChanges.removeAll()
        beforePublishingCommit?(self)
        // (As on SQLite: observers may read and write through the handle; the block is still on the stack.)
        let depth = transactionDepth
        transactionDepth = 0
        defer { transactionDepth = depth }
        for observer in models.observers.values { observer(changes) }
    }

    /// ``recordingReads(_:)`` on another engine: the tables of the models the body fetched, and
    /// ``anyTable`` when it ran raw SQL (whose tables the engine does not tell).
    func remoteRecordingReads<T>(_ body: () throws -> T) throws -> (T, Set<String>) {
        models.readRegion = []
        defer { models.readRegion = nil }
        let result = try body()
        return (result, models.readRegion ?? [])
    }
}
