import Foundation
import Strata

// Models for the relationship tests (names prefixed so they do not clash with other suites' models).

/// A parent with a to-many side; its `members` storage must not become a column (no explicit list).
final class RTeam: Model {
    var id: Int64 = 0
    var name = ""
    @Children(by: "team", orderBy: "name") var members: [RMember]
    required init() {}
}

/// A child pointing at its team; the relationship takes part in an index.
final class RMember: Model {
    static let indices: [[String]] = [["team", "name"]]
    var id: Int64 = 0
    var name = ""
    @Reference var team: RTeam?
    required init() {}
}

/// A model with a text key.
final class RCountry: Model {
    static let primaryKey = "code"
    var code = ""
    var name = ""
    required init() {}
}

/// A relationship to a model with a text key.
final class RCity: Model {
    var id: Int64 = 0
    var name = ""
    @Reference var country: RCountry?
    required init() {}
}

/// A parent that counts its deinits, with a to-many side in descending name order.
final class LParent: Model {
    static var persistentProperties: [String] { ["id", "name"] }
    var id: Int64 = 0
    var name = ""
    @Children(by: "parent", orderBy: "name DESC") var kids: [LChild]
    var counter: DeinitCounter?
    required init() {}
    deinit { counter?.count += 1 }
}

/// A child that counts its deinits.
final class LChild: Model {
    static var persistentProperties: [String] { ["id", "name", "parent"] }
    var id: Int64 = 0
    var name = ""
    @Reference var parent: LParent?
    var counter: DeinitCounter?
    required init() {}
    deinit { counter?.count += 1 }
}

/// A model referring to itself (A -> B -> A through two references).
final class LPerson: Model {
    static var persistentProperties: [String] { ["id", "name", "partner"] }
    var id: Int64 = 0
    var name = ""
    @Reference var partner: LPerson?
    var counter: DeinitCounter?
    required init() {}
    deinit { counter?.count += 1 }
}

/// GYDataCenter's `Department` table (fixture), mapped by column name; its key is `departmentId`.
final class RelGYDepartment: Model {
    static var tableName: String { "Department" }
    static var primaryKey: String { "departmentId" }
    static var persistentProperties: [String] { ["departmentId", "stringProperty", "intProperty"] }
    var departmentId: Int64 = 0
    var stringProperty: String?
    var intProperty: Int64?
    @Children(by: "department", orderBy: "name") var employees: [RelGYEmployee]
    required init() {}
}

/// GYDataCenter's `Employee` table (fixture): `department` holds a Department key.
final class RelGYEmployee: Model {
    static var tableName: String { "Employee" }
    static var primaryKey: String { "employeeId" }
    static var persistentProperties: [String] { ["employeeId", "name", "dateOfBirth", "department"] }
    var employeeId: Int64 = 0
    var name: String?
    var dateOfBirth: Date?
    @Reference var department: RelGYDepartment?
    required init() {}
}

/// Records the SQL of every statement a database runs while it is alive.
final class StatementLog {
    private(set) var statements: [String] = []
    private var trace: StatementTrace?

    init(_ db: Database) {
        trace = db.traceStatements { [unowned self] sql in self.statements.append(sql) }
    }

    var count: Int { statements.count }

    /// The statements `body` ran.
    func during<T>(_ body: () throws -> T) rethrows -> (T, [String]) {
        let start = statements.count
        let result = try body()
        return (result, Array(statements[start...]))
    }

    func stop() { trace?.cancel() }
}

/// A target whose table is named like the prefetch join's alias and whose columns are named like
/// json_each's.
final class JoinTarget: Model {
    static let tableName = "strata_keys"
    var id: Int64 = 0
    var key = ""
    var value = 0.0
    var type = 0
    required init() {}
}

/// An owner of a ``JoinTarget``.
final class JoinOwner: Model {
    var id: Int64 = 0
    @Reference var target: JoinTarget?
    required init() {}
}
