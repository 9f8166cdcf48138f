/// What an engine's driver tells the identity map as statements run: each row a statement inserted, updated
/// or deleted, and the end of each transaction. On SQLite these come from the update, commit and rollback
/// hooks (SQLite/Database+ChangeHooks.swift); another engine reports them from its own notifications.
/// The sink only records: it never runs SQL from inside a report.
///
/// ```swift
/// // in a driver's row-change callback:
/// sink.rowChanged(.update, table: tableName, rowID: rowID)
/// // and when the engine commits or rolls back:
/// sink.willCommit()
/// sink.didRollBack()
/// ```
protocol ChangeSink: AnyObject {
    /// A row of `table` (a NUL-terminated name, valid during the call) was inserted, updated or deleted.
    func rowChanged(_ operation: RowOperation, table: UnsafePointer<CChar>, rowID: Int64)
    /// The open transaction (or the statement outside one) is about to commit.
    func willCommit()
    /// The open transaction rolled back.
    func didRollBack()
}
