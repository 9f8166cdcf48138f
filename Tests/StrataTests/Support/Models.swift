import Foundation
import Strata

final class Department: Model {
    var id: Int64 = 0
    var name = ""
    required init() {}
}

final class Employee: Model {
    static let primaryKey = "employeeId"
    static let persistentProperties = ["employeeId", "name", "dateOfBirth", "department"]
    static let indices: [[String]] = [["dateOfBirth"], ["department", "name"]]

    var employeeId: Int64 = 0
    var name = ""
    var dateOfBirth: Date?
    @Reference var department: Department?
    var scratch = 0
    required init() {}
}

/// Counts deinits, for leak tests.
final class DeinitCounter: @unchecked Sendable {
    // Tests run in parallel; each test makes its own counter, so this needs no lock beyond the test's.
    var count = 0
}
