extension Database {
    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws (the error is
    /// rethrown). Called inside another transaction, it becomes a savepoint that rolls back alone.
    /// After a rollback, live model instances hold the database's values again.
    ///
    /// Transactions begin IMMEDIATE by default (DEFERRED on a read-only handle): the write lock is taken
    /// (waiting up to the busy timeout) before the block runs, so a read-then-write block cannot fail
    /// half way with a busy error (``ResultCode/busy``), and
    /// what other connections committed before is merged into the live instances first. Pass
    /// `.deferred` for a read-only block that should not hold the lock: a deferred block that writes after
    /// another connection committed since its first read fails at once with ``ResultCode/busySnapshot``
    /// (WAL; the busy timeout cannot help) and rolls back.
    ///
    /// ```swift
    /// try db.transaction {
    ///     try db.save(order)
    ///     try? db.transaction {          // a savepoint
    ///         try db.save(risky)         // if this throws, only the inner block is undone
    ///     }
    /// }
    /// ```
    @discardableResult
    public func transaction<T>(_ kind: TransactionKind? = nil, _ body: () throws -> T) throws -> T {
        // A read-only handle cannot take the write lock: its transactions are deferred.
        let kind = kind ?? (configuration.readOnly ? .deferred : .immediate)
        if let remote { return try remoteTransaction(remote, kind, body) }
        if connection.isClosed { throw connection.closedError(sql: nil) }
        let nested = isInTransaction
        transactionDepth += 1
        defer { transactionDepth -= 1 }
        // A failure that ends this block's transaction is the block's to handle (a save of its own included:
        // its instances keep their changes).
        if !nested { models.failureEndedTransaction = false }
        defer { if !nested { models.failureEndedTransaction = false } }
        let savepoint = "strata_\(transactionDepth)"
        // What happened before is settled first: changes made before a savepoint survive its rollback and
        // those made after it must not be reported; a rollback left over from a bare statement is applied.
        reconcileLiveInstances()
        let changesBefore = models.transactionChanges
        // (A read-only transaction ends without the commit hook, which clears the flag otherwise.)
        defer { if !nested { models.transactionMerged = false } }
        do {
            try connection.executeUntracked(nested ? "SAVEPOINT \(savepoint)" : connection.dialect.begin(kind))
        } catch let error as DatabaseError where error.code.primary == .busy && !nested {
            // Say what was waited for, and how long: the lock, not this handle's statement, is the cause.
            let waited = "\(configuration.busyTimeout.busyMilliseconds) ms"
            throw DatabaseError(code: error.code, message: "\(error.message): another connection held the write lock for the whole busy timeout (\(waited))",
                                sql: error.sql, arguments: error.arguments, argumentsArePublic: error.argumentsArePublic)
        }
        if !nested { models.ownsTransaction = true }
        // The library's own COMMIT or ROLLBACK ends it (and an error leaves no claim behind).
        defer { if !nested { models.ownsTransaction = false } }
        let result: T
        do {
            if !nested {
                try mergeForeignCommits()
                models.transactionMerged = true
            }
            result = try body()
            try checkTransactionIsOpen()
        } catch {
            rollback(nested ? savepoint : nil, changesBefore: changesBefore)
            throw error
        }
        do {
            if !nested { models.ownsTransaction = false }
            try connection.executeUntracked(nested ? "RELEASE SAVEPOINT \(savepoint)" : "COMMIT TRANSACTION")
        } catch {
            rollback(nested ? savepoint : nil, changesBefore: changesBefore)
            throw error
        }
        if nested {
            // Inserts of a released savepoint now belong to the enclosing level: a later rollback of a sibling
            // savepoint must not undo them.
            let depth = transactionDepth
            for i in models.insertedInTransaction.indices where models.insertedInTransaction[i].depth >= depth {
                models.insertedInTransaction[i].depth = depth - 1
            }
            for (id, refused) in models.refusedInTransaction where refused.depth >= depth {
                models.refusedInTransaction[id] = (refused.object, depth - 1)
            }
        }
        reconcileLiveInstances()
        return result
    }

    /// Rolls back to `savepoint`, or the whole transaction; the original error matters more than a
    /// failure here, which can only mean SQLite already rolled back (e.g. after ``ResultCode/full``).
    private func rollback(_ savepoint: String?, changesBefore: [String: DatabaseChange]) {
        models.pendingCommitted = 0   // a COMMIT that failed after its hook committed nothing
        if let savepoint {
            try? connection.executeUntracked("ROLLBACK TO SAVEPOINT \(savepoint); RELEASE SAVEPOINT \(savepoint)")
        } else if isInTransaction {
            models.ownsTransaction = false
            try? connection.execute("ROLLBACK TRANSACTION")
        }
        restoreLiveInstancesAfterRollback(toDepth: savepoint == nil ? 0 : transactionDepth)
        if savepoint != nil { models.transactionChanges = changesBefore }
    }

    /// Throws when SQLite ended the transaction this block opened (a statement with `OR ROLLBACK`, or a
    /// rollback after ``ResultCode/full`` or ``ResultCode/ioError``): what the block wrote is gone, and writes that followed
    /// would commit one by one outside any transaction.
    @inline(__always)
    func checkTransactionIsOpen() throws {
        if transactionDepth > 0 { try checkOpenTransactionIsOpen() }
    }

    @inline(never)
    private func checkOpenTransactionIsOpen() throws {
        guard !isInTransaction else { return }
        if models.rolledBack { restoreLiveInstancesAfterRollback(toDepth: 0) }
        throw DatabaseError(code: .abort, message: "the transaction was rolled back by SQLite; nothing written in it was kept")
    }
}
