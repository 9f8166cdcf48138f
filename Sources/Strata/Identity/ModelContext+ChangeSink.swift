// The identity map's side of the engine's change reports (``ChangeSink``): which rows changed, whether a
// change is the library's own write (its instance is already up to date), and the end of each transaction.
// What the driver reports is applied to live instances later, at the next model call (Database+Reconcile).

extension ModelContext: ChangeSink {
    @inline(__always)
    func rowChanged(_ operation: RowOperation, table: UnsafePointer<CChar>, rowID: Int64) {
        changeCount &+= 1
        // Only the very row the library is writing is "own" (its instance is already up to date),
        // by the kind of change the library makes; rows that cascades and triggers change through it
        // are handled like any other write. The first change to that row only: a trigger writing the
        // same row again is a foreign change.
        var own = false
        if ownWrite && (operation == .insert) == ownInsert
            && (ownAnyRow || rowID == ownRowID)
            && ownTable.map({ sameIdentifier($0, table) }) == true {
            own = true
            ownAnyRow = false
            ownRowID = Int64.min
        }
        if own && observers.isEmpty && !ownShared { return }
        pending.append(.init(operation: operation, table: String(cString: table), rowID: rowID, own: own,
                             writer: own && ownShared ? ownRegistry : nil))
    }

    func willCommit() {
        committed = true
        transactionMerged = false
        pendingCommitted = pending.count
        if !savepoints.isEmpty { savepoints.removeAll() }
    }

    func didRollBack() {
        rolledBack = true
        transactionMerged = false
        // What the rolled-back transaction wrote is dropped now: changes reported after this (a statement
        // SQLite re-prepares after a schema change rolls back its implicit transaction, then runs and
        // commits; a script goes on after its ROLLBACK) are real, and delivered when they commit.
        // (Those a commit hook saw before, of an earlier transaction of the same script, stay.)
        if pending.count > pendingCommitted { pending.removeSubrange(pendingCommitted...) }
        if !transactionChanges.isEmpty { transactionChanges.removeAll() }
        silentWrites = false
        if !savepoints.isEmpty { savepoints.removeAll() }
    }
}

/// Whether two table names are the same to the engine (as SQLite compares identifiers): ASCII letters compare
/// without case, every other byte as it is. Inline, because the update hook asks it for every row written.
@inline(__always)
func sameIdentifier(_ a: UnsafePointer<CChar>, _ b: UnsafePointer<CChar>) -> Bool {
    var i = 0
    while true {
        let x = UInt8(bitPattern: a[i]), y = UInt8(bitPattern: b[i])
        if x != y {
            let foldedX = x &- 65 < 26 ? x | 0x20 : x, foldedY = y &- 65 < 26 ? y | 0x20 : y
            if foldedX != foldedY { return false }
        } else if x == 0 {
            return true
        }
        i += 1
    }
}
