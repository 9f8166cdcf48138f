// Transactions that raw SQL opens and ends on an engine other than SQLite (`BEGIN`, `SAVEPOINT`, `RELEASE`,
// `ROLLBACK TO`, `ROLLBACK`, `COMMIT`), followed into the live instances as the library's own are: a
// rollback (to a savepoint) makes the instances inserted since new again, and those updated or deleted
// since read their rows again. SQLite's hooks tell this; another engine's statements are read here.
extension Database {
    /// The depth the engine's writes are recorded at, for a rollback to undo: the library's transaction
    /// levels and those raw SQL opened.
    var remoteWriteDepth: Int { transactionDepth + models.remoteRawLevels.count }

    /// After raw `sql` ran: the transaction levels it opened, released or rolled back, statement by statement.
    func remoteFollowRawTransactionControl<C: RemoteConnection>(_ remote: C, _ sql: String) {
        for tokens in Self.statementTokens(sql) {
            guard let first = tokens.first else { continue }
            switch first {
            case "begin", "start":
                if transactionDepth == 0 && models.remoteRawLevels.isEmpty { models.remoteRawLevels.append(("", remoteWriteDepth + 1)) }
            case "savepoint":
                if tokens.count > 1 { models.remoteRawLevels.append((tokens[1], remoteWriteDepth + 1)) }
            case "release":
                guard let name = tokens.dropFirst().first(where: { $0 != "savepoint" }),
                      let i = models.remoteRawLevels.lastIndex(where: { $0.name == name && !name.isEmpty }) else { continue }
                let depth = models.remoteRawLevels[i].depth
                models.remoteRawLevels.removeSubrange(i...)
                // Its writes belong to the enclosing level now.
                for j in models.remoteWrites.indices where models.remoteWrites[j].depth >= depth { models.remoteWrites[j].depth = depth - 1 }
                for (id, refused) in models.refusedInTransaction where refused.depth >= depth {
                    models.refusedInTransaction[id] = (refused.object, depth - 1)
                }
            case "rollback", "abort":
                if let to = tokens.firstIndex(of: "to") {
                    guard let name = tokens[(to + 1)...].first(where: { $0 != "savepoint" }),
                          let i = models.remoteRawLevels.lastIndex(where: { $0.name == name && !name.isEmpty }) else { continue }
                    // The savepoint stays open; the levels opened after it are gone.
                    let depth = models.remoteRawLevels[i].depth
                    models.remoteRawLevels.removeSubrange((i + 1)...)
                    remoteRestoreAfterRollback(remote, toDepth: depth - 1)
                } else if transactionDepth == 0 {
                    models.remoteRawLevels.removeAll()
                    remoteRestoreAfterRollback(remote, toDepth: 0)
                }
            case "commit", "end":
                guard transactionDepth == 0 else { continue }
                models.remoteRawLevels.removeAll()
                models.remoteWrites.removeAll()
                models.refusedInTransaction.removeAll()
                models.childTypesWrittenInTransaction.removeAll()
            default:
                continue
            }
        }
    }

    /// The leading words of each statement of `sql` that can control a transaction (``SQLTokenizer``'s
    /// tokens): bare words lowercased, as the engine folds them; a quoted name as written.
    static func statementTokens(_ sql: String) -> [[String]] {
        var statements: [[String]] = [[]]
        for token in SQLTokenizer.tokens(sql) {
            if token.isPunctuation(";") {
                statements.append([])
            } else if let name = token.identifier, statements[statements.count - 1].count < 6 {
                statements[statements.count - 1].append(token.kind == .word ? name.lowercased() : name)
            }
        }
        return statements.filter { !$0.isEmpty }
    }
}
