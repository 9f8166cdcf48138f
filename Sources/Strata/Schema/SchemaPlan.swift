/// What schema sync would do (or did) for one model: each step with its SQL.
///
/// ```swift
/// let plan = try db.schemaPlan(for: Employee.self)   // a dry run: nothing is changed
/// for step in plan.steps { print(step.sql) }
/// ```
public struct SchemaPlan: Sendable, CustomStringConvertible {
    /// The model type's name. ```swift plan.model  // "Employee" ```
    public let model: String
    /// The table. ```swift plan.table  // "Employee" ```
    public let table: String
    /// The steps, in the order they run. ```swift plan.steps.count ```
    public let steps: [SchemaStep]

    /// Whether the table is already in sync. ```swift plan.isEmpty ```
    public var isEmpty: Bool { steps.isEmpty }

    /// One line per step. ```swift print(plan) ```
    public var description: String {
        steps.isEmpty ? "\(model): in sync" : steps.map { "\(model): \($0)" }.joined(separator: "\n")
    }
}

/// One additive schema change.
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
        /// CREATE TABLE. ```swift .createTable ```
        case createTable
        /// ALTER TABLE ADD COLUMN, naming the column. ```swift .addColumn("email") ```
        case addColumn(String)
        /// CREATE INDEX, naming the index. ```swift .createIndex("strata_Employee_name") ```
        case createIndex(String)
        /// DROP INDEX of an index Strata made and the model no longer declares. ```swift .dropIndex(name) ```
        case dropIndex(String)
    }
    /// The kind. ```swift step.kind ```
    public let kind: Kind
    /// The SQL it runs. ```swift step.sql  // ALTER TABLE "Employee" ADD COLUMN ... ```
    public let sql: String

    /// The SQL. ```swift print(step) ```
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
    /// The model type's name. ```swift error.model ```
    public let model: String
    /// The table. ```swift error.table ```
    public let table: String
    /// The column, when one is concerned. ```swift error.column ```
    public let column: String?
    /// What the database has. ```swift error.found ```
    public let found: String
    /// What the model needs. ```swift error.expected ```
    public let expected: String
    /// The user's choices. ```swift error.remedy ```
    public let remedy: String

    /// A sentence with all of the above. ```swift print(error) ```
    public var description: String {
        "Schema of model \(model) cannot be synced: table \"\(table)\"\(column.map { ", column \"\($0)\"" } ?? ""): found \(found), expected \(expected). \(remedy)"
    }
}
