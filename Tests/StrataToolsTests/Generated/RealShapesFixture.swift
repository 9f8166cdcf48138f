// Strata models for the tables of real-shapes.sqlite, written by `strata generate`.
// Properties are named after their columns (columnNames maps the others); foreign keys are @Reference.

import Foundation
import Strata

enum RealShapesFixture {
    /// Every model of this file. ```swift RealShapesFixture.models.count ```
    static let models: [any Model.Type] = [Currencies.self, Customers.self, Film.self, FilmActor.self, Legacy.self, MozInputhistory.self, MozMeta.self, OrderDetails.self, Orders.self, PageContent.self, Products.self, Settings.self, Suppliers.self, CurrentProductList.self, CustomerAndSuppliersByCity.self, FilmList.self, OrderSubtotals.self, SummaryOfSalesByQuarter.self]

    // skipped: "boxes": a virtual table; Strata models map ordinary tables

    // skipped: "boxes_node": shadow table of the RTREE table boxes

    // skipped: "boxes_parent": shadow table of the RTREE table boxes

    // skipped: "boxes_rowid": shadow table of the RTREE table boxes

    final class Currencies: Model {
        static let tableName = "currencies"
        static let primaryKey = "code"
        var code: String = ""  // sampled rows hold text values, which Int64 would not keep
        var name: String?
        required init() {}
    }

    final class Customers: Model {
        static let primaryKey = "CustomerID"
        var CustomerID: String = ""
        var CompanyName: String = ""
        var ContactName: String?
        var City: String?
        required init() {}
    }

    // skipped: "docs": a virtual table; Strata models map ordinary tables

    // skipped: "docs_config": shadow table of the FTS5 table docs

    // skipped: "docs_content": shadow table of the FTS5 table docs

    // skipped: "docs_data": shadow table of the FTS5 table docs

    // skipped: "docs_docsize": shadow table of the FTS5 table docs

    // skipped: "docs_idx": shadow table of the FTS5 table docs

    final class Film: Model {
        static let tableName = "film"
        static let primaryKey = "film_id"
        var film_id: Int64 = 0
        var title: String?
        required init() {}
    }

    final class FilmActor: Model {
        static let tableName = "film_actor"
        static let primaryKey = "rowid"
        static let isReadOnly = true   // no PRIMARY KEY: keyed by its rowid, which VACUUM may renumber
        var rowid: Int64 = 0
        var film_id: Int64?
        var actor: String?
        required init() {}
    }

    final class Legacy: Model {
        static let tableName = "legacy"
        var id: Int64 = 0
        var active: Bool = false
        var born: SQLValue = .null  // sampled rows hold text values: SQLValue keeps each as stored
        required init() {}
    }

    final class MozInputhistory: Model {
        static let tableName = "moz_inputhistory"
        static let compositeKey = ["place_id", "input"]
        var place_id: Int64 = 0
        var input: String = ""
        var use_count: Double?  // sampled rows hold integer and real values, which Int64 would not keep
        required init() {}
    }

    final class MozMeta: Model {
        static let tableName = "moz_meta"
        static let primaryKey = "key"
        var key: String = ""
        var value: Int64 = 0  // sampled rows hold integer values, which String would not keep
        required init() {}
    }

    // skipped: "notes": a virtual table; Strata models map ordinary tables

    // skipped: "notes_content": shadow table of the FTS4 table notes

    // skipped: "notes_docsize": shadow table of the FTS4 table notes

    // skipped: "notes_segdir": shadow table of the FTS4 table notes

    // skipped: "notes_segments": shadow table of the FTS4 table notes

    // skipped: "notes_stat": shadow table of the FTS4 table notes

    final class OrderDetails: Model {
        static let tableName = "Order Details"
        static let compositeKey = ["Order", "Product"]
        @Reference var Order: Orders?  // NOT NULL: saving without one throws
        @Reference var Product: Products?  // NOT NULL: saving without one throws
        var UnitPrice: Double = 0
        var Quantity: Int64 = 1
        required init() {}
    }

    final class Orders: Model {
        static let primaryKey = "OrderID"
        var OrderID: Int64 = 0
        @Reference var Customer: Customers?
        var OrderDate: Date?
        var ShippedDate: Date?
        var Freight: SQLValue = .integer(0)
        var ShipCity: String?
        required init() {}
    }

    final class PageContent: Model {
        static let tableName = "page_content"
        var id: Int64 = 0
        var html: String?
        required init() {}
    }

    final class Products: Model {
        static let primaryKey = "ProductID"
        var ProductID: Int64 = 0
        var ProductName: String = ""
        var Discontinued: String = "0"
        required init() {}
    }

    final class Settings: Model {
        static let tableName = "settings"
        static let primaryKey = "name"
        var name: String = ""  // sampled rows hold text values, which Int64 would not keep
        var value: SQLValue = .integer(0)  // sampled rows hold integer and text values: SQLValue keeps each as stored
        required init() {}
    }

    final class Suppliers: Model {
        static let primaryKey = "SupplierID"
        var SupplierID: Int64 = 0
        var CompanyName: String = ""
        var ContactName: String?
        var City: String?
        required init() {}
    }

    // keyed by PID, the primary key of "Products" carried through: one object per row
    final class CurrentProductList: Model {
        static let tableName = "Current Product List"
        static let primaryKey = "PID"
        static let isReadOnly = true   // a view
        var PID: Int64 = 0
        var Name: String?
        required init() {}
    }

    // read without identity: the view is a compound SELECT (UNION, INTERSECT or EXCEPT), so no column is proven unique; rows come back as fresh read-only objects
    final class CustomerAndSuppliersByCity: Model {
        static let tableName = "Customer and Suppliers by City"
        static let primaryKey = "City"
        static let isReadOnly = true   // a view
        var City: String?
        var CompanyName: String?
        var ContactName: String?
        var Relationship: SQLValue = .null
        required init() {}
    }

    // read without identity: the view joins tables, so no column is proven unique; rows come back as fresh read-only objects
    final class FilmList: Model {
        static let tableName = "film_list"
        static let primaryKey = "FID"
        static let isReadOnly = true   // a view
        var FID: Int64 = 0
        var title: String?
        var actors: String?
        required init() {}
    }

    // read without identity: the view groups rows, so no column is proven unique; rows come back as fresh read-only objects
    final class OrderSubtotals: Model {
        static let tableName = "Order Subtotals"
        static let primaryKey = "OrderID"
        static let isReadOnly = true   // a view
        var OrderID: Int64 = 0
        var Subtotal: SQLValue = .null
        required init() {}
    }

    // read without identity: the view joins tables, so no column is proven unique; rows come back as fresh read-only objects
    final class SummaryOfSalesByQuarter: Model {
        static let tableName = "Summary of Sales by Quarter"
        static let primaryKey = "ShippedDate"
        static let isReadOnly = true   // a view
        var ShippedDate: String = ""  // sampled rows hold text values, which Int64 would not keep
        var OrderID: Int64?
        var Subtotal: SQLValue = .null
        required init() {}
    }
}
