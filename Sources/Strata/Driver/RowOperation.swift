/// What a change sink was told happened to one row.
///
/// ```swift
/// if change.operation == .delete { registry.forget(change.rowID) }
/// ```
package enum RowOperation: Sendable {
    case insert, update, delete
}
