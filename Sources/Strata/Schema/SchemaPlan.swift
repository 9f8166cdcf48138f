/// What schema sync would do (or did) for one model: each step with its SQL.
///
/// ```swift
/// let plan = try db.schemaPlan(for: Employee.self)   // a dry run: nothing is changed
/// for step in plan.steps { print(step.sql) }
/// ```
public struct SchemaPlan: Sendable, CustomStringConvertible {
    /// The model type's name.
    ///
    /// ```swift
    /// plan.model  // "Employee"
    /// ```
    public let model: String
    /// The table.
    ///
    /// ```swift
    /// plan.table  // "Employee"
    /// ```
    public let table: String
    /// The steps, in the order they run.
    ///
    /// ```swift
    /// plan.steps.count
    /// ```
    public let steps: [SchemaStep]
    /// Where each persistent property is stored: property name -> column name (they differ where the
    /// model's ``ModelDeclaration/columnNames`` says so, or a reference found its `<name>_id` column).
    ///
    /// ```swift
    /// let plan = try db.schemaPlan(for: Track.self)
    /// plan.columns["album"]   // "album_id"
    /// ```
    public var columns: [String: String] = [:]
    /// UNIQUE indices Strata made that the model no longer declares: kept (sync never drops one), and
    /// reported in a warning, since a UNIQUE constraint nobody declares may refuse saves the model allows.
    var keptUniqueIndices: [String] = []
    /// The columns a rebuild in the plan changes or adds, for the error of a step that fails.
    var rebuiltColumns: [String] = []

    init(model: String, table: String, steps: [SchemaStep], columns: [String: String] = [:]) {
        self.model = model
        self.table = table
        self.steps = steps
        self.columns = columns
    }

    /// Whether the table is already in sync.
    ///
    /// ```swift
    /// plan.isEmpty
    /// ```
    public var isEmpty: Bool { steps.isEmpty }

    /// Whether the plan rebuilds the table (the model opted in with ``SchemaRebuild/whenNeeded``).
    /// ```swift
    /// if plan.rebuildsTable { print("the table is copied") }
    /// ```
    public var rebuildsTable: Bool { steps.contains { $0.kind == .rebuildTable } }

    /// One line per step, then one per property stored under another name.
    ///
    /// ```swift
    /// print(plan)
    /// // Track: in sync
    /// // Track: album -> column "album_id"
    /// ```
    public var description: String {
        let renamed = columns.filter { $0.key != $0.value }.sorted { $0.key < $1.key }.map { "\(model): \($0.key) -> column \"\($0.value)\"" }
        return ([steps.isEmpty ? "\(model): in sync" : steps.map { "\(model): \($0)" }.joined(separator: "\n")] + renamed).joined(separator: "\n")
    }
}

/// One schema change: additive, a rename the model hints at, or one statement of a rebuild it opted in to.
///
/// ```swift
/// if case .addColumn(let column) = step.kind { print("adds", column) }
/// ```
public struct SchemaStep: Sendable, Hashable, CustomStringConvertible {
    /// What the step does.
    ///
    /// ```swift
    /// switch step.kind { case .createTable: ... default: break }
    /// ```
    public enum Kind: Sendable, Hashable {
        /// CREATE TABLE.
        ///
        /// ```swift
        /// .createTable
        /// ```
        case createTable
        /// ALTER TABLE ADD COLUMN, naming the column.
        ///
        /// ```swift
        /// .addColumn("email")
        /// ```
        case addColumn(String)
        /// CREATE INDEX, naming the index.
        ///
        /// ```swift
        /// .createIndex("strata_Employee_name")
        /// ```
        case createIndex(String)
        /// DROP INDEX of an index Strata made and the model no longer declares.
        ///
        /// ```swift
        /// .dropIndex(name)
        /// ```
        case dropIndex(String)
        /// ALTER TABLE RENAME TO, from a name in ``ModelDeclaration/previousTableNames``.
        /// ```swift
        /// .renameTable(from: "Employee", to: "employees")
        /// ```
        case renameTable(from: String, to: String)
        /// ALTER TABLE RENAME COLUMN, from a hint in ``ModelDeclaration/renamedColumns``.
        /// ```swift
        /// .renameColumn(from: "name", to: "fullName")
        /// ```
        case renameColumn(from: String, to: String)
        /// One statement of a table rebuild (SQLite's 12-step procedure): CREATE the new table, copy the
        /// rows, DROP the old one, RENAME the new one, recreate indices and triggers. Sync runs these in one
        /// transaction with foreign keys turned off before it begins and back on after it ends.
        /// ```swift
        /// if step.kind == .rebuildTable { print(step.sql) }
        /// ```
        case rebuildTable
        /// A query of a rebuild that must return no rows: NULLs under a new NOT NULL, values that did not
        /// convert to a column's new type, `PRAGMA foreign_key_check`. Any row rolls the rebuild back with a
        /// ``SchemaError`` listing them.
        /// ```swift
        /// .rebuildCheck(column: "title", expectation: "no NULL in \"title\"")
        /// ```
        case rebuildCheck(column: String?, expectation: String)
    }
    /// The kind.
    ///
    /// ```swift
    /// step.kind
    /// ```
    public let kind: Kind
    /// The SQL it runs.
    ///
    /// ```swift
    /// step.sql  // ALTER TABLE "Employee" ADD COLUMN ...
    /// ```
    public let sql: String

    /// The SQL.
    ///
    /// ```swift
    /// print(step)
    /// ```
    public var description: String { sql }
}

/// A difference between a model and its table that additive sync cannot resolve; nothing was changed.
///
/// ```swift
/// do { try db.save(employee) }
/// catch let error as SchemaError { print(error) }
/// // table "Employee", column "age": found TEXT affinity (declared "TEXT"), expected INTEGER ...
/// ```
public struct SchemaError: Error, CustomStringConvertible, Sendable {
    /// The model type's name.
    ///
    /// ```swift
    /// error.model
    /// ```
    public let model: String
    /// The table.
    ///
    /// ```swift
    /// error.table
    /// ```
    public let table: String
    /// The column, when one is concerned.
    ///
    /// ```swift
    /// error.column
    /// ```
    public let column: String?
    /// What the database has.
    ///
    /// ```swift
    /// error.found
    /// ```
    public let found: String
    /// What the model needs.
    ///
    /// ```swift
    /// error.expected
    /// ```
    public let expected: String
    /// The user's choices.
    ///
    /// ```swift
    /// error.remedy
    /// ```
    public let remedy: String

    /// A sentence with all of the above.
    ///
    /// ```swift
    /// print(error)
    /// ```
    public var description: String {
        "Schema of model \(model) cannot be synced: table \"\(table)\"\(column.map { ", column \"\($0)\"" } ?? ""): found \(found), expected \(expected). \(remedy)"
    }
}
