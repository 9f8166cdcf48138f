// Strata models for the tables of sqlalchemy_blog.sqlite3, written by `strata generate`.
// Properties are named after their columns (columnNames maps the others); foreign keys are @Reference.

import Foundation
import Strata

enum SQLAlchemyFixture {
    /// Every model of this file. ```swift SQLAlchemyFixture.models.count ```
    static let models: [any Model.Type] = [Events.self, PostTags.self, Posts.self, Settings.self, Tags.self, Users.self]

    final class Events: Model {
        static let tableName = "events"
        var id: Int64 = 0
        var kind: String = ""
        var payload: Data?
        var at: Double = 0
        required init() {}
    }

    final class PostTags: Model {
        static let tableName = "post_tags"
        static let compositeKey = ["post", "tag"]
        @Reference var post: Posts?  // NOT NULL: saving without one throws
        @Reference var tag: Tags?  // NOT NULL: saving without one throws
        required init() {}
    }

    final class Posts: Model {
        static let tableName = "posts"
        static let indices = [["title"]]
        var id: Int64 = 0
        @Reference var user: Users?  // NOT NULL: saving without one throws
        var title: String = ""
        var body: String?
        var published_on: Date?
        var updated_at: Date?
        var body_length: Int64?  // generated column: read, never written
        required init() {}
    }

    final class Settings: Model {
        static let tableName = "settings"
        static let primaryKey = "key"
        var key: String = ""
        var value: String?
        required init() {}
    }

    final class Tags: Model {
        static let tableName = "tags"
        var id: Int64 = 0
        var name: String = ""
        required init() {}
    }

    final class Users: Model {
        static let tableName = "users"
        static let indices = [["email"]]
        var id: Int64 = 0
        var username: String = ""
        var email: String = ""
        var is_admin: Bool = false
        var created_at: Date = Date()
        var balance: Decimal = 0
        var avatar: Data?
        var prefs: SQLValue = .null  // JSON: read as stored; a Codable type of yours ([String: Int], a struct) maps here too
        var external_id: UUID = UUID()
        var status: String = ""
        var bio: String?
        var karma: Int64 = 0
        var views: Int64 = 0
        required init() {}
    }
}
