// Strata models for the tables of GYDataCenterTests.db, written by `strata generate`.
// Properties are named after their columns (columnNames maps the others); foreign keys are @Reference.

import Foundation
import Strata

final class Department: Model {
    static let primaryKey = "departmentId"
    var departmentId: Int64 = 0
    var BOOLProperty: Int64?
    var arrayProperty: Data?
    var booleanProperty: Int64?
    var charProperty: Int64?
    var dataProperty: Data?
    var dateProperty: Double?
    var doubleProperty: Double?
    var floatProperty: Double?
    var intProperty: Int64?
    var longLongProperty: Int64?
    var longProperty: Int64?
    var mutableStringProperty: String?
    var shortProperty: Int64?
    var stringProperty: String?
    var unsignedLongLongProperty: Int64?
    var unsignedLongProperty: Int64?
    var unsignedProperty: Int64?
    required init() {}
}

final class Employee: Model {
    static let primaryKey = "employeeId"
    var employeeId: Int64 = 0
    var dateOfBirth: Double?
    var department: Int64?
    var name: String?
    required init() {}
}
