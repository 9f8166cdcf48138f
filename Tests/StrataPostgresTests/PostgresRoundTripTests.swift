import Foundation
@testable import Strata
import StrataPostgres
import StrataTestSupport
import Testing

/// A table as both engines must agree on it: the same columns in the same order with the same
/// nullability and key positions, the same indices Strata owns (name, uniqueness, columns) and the same
/// foreign keys. Declared types differ by engine, each as its dialect names the property's type.
private struct Shape: Equatable, CustomStringConvertible {
    var columns: [String]
    var indices: [String]
    var foreignKeys: [String]

    init(_ info: TableInfo) {
        columns = info.columns.map { "\($0.name) null=\(!$0.notNull && $0.primaryKeyPosition == 0) pk=\($0.primaryKeyPosition)" }
        indices = info.indices.filter { $0.name.hasPrefix("strata_") }
            .map { "\($0.name) unique=\($0.unique) \($0.columns.map { $0 ?? "(expression)" })" }.sorted()
        foreignKeys = info.foreignKeys.map { "\($0.from) -> \($0.table).\($0.to ?? "(key)") ON DELETE \($0.onDelete)" }.sorted()
    }

    var description: String { (columns + indices + foreignKeys).joined(separator: "\n") }
}

@Suite("PostgreSQL and SQLite agree", .enabled(if: postgresURL != nil, "STRATA_POSTGRES_URL is not set (run under Scripts/with-postgres.sh)"))
struct PostgresRoundTripTests {
    /// The models of PostgresRoundTripModels.swift: each key type (Int64, Int, Int32, String, UUID, two
    /// composite forms) and value type, indices plain, unique and composite, references with each ON DELETE.
    static let roundTripModels: [any Model.Type] = [
        RTIntKey.self, RTInt32Key.self, RTStringKey.self, RTUUIDKey.self, RTIntegers.self, RTOptionals.self,
        RTValues.self, RTIndexed.self, RTOwner.self, RTPet.self, RTNode.self, RTLink.self, RTComposite.self,
        RTMembership.self, RTTicket.self,
    ]

    /// Every model of the PostgreSQL suites and of the round trip's own set (21 tables), synced on a new SQLite file and in a new PostgreSQL schema:
    /// the introspected tables have one shape, and each column's declared type is its dialect's for the
    /// property (SQLite's storage types; PostgreSQL's BOOLEAN, TIMESTAMPTZ, UUID, NUMERIC, JSONB).
    @Test func everyModelSyncsToTheSameTableOnBothEngines() throws {
        let models: [any Model.Type] = [PGArtist.self, PGAlbum.self, PGTag.self, PGTagging.self, PGMapped.self, PGBadFit.self]
            + Self.roundTripModels
        #expect(Set(models.map { $0.tableName }).count == 21)
        let temp = try TemporaryDatabase()
        for model in models { _ = try temp.db.syncSchema(model) }
        try withSchema { connection in
            try connection.syncSchema(models)
            let postgres = try PostgresIntrospector(connection)
            for model in models {
                let sqliteInfo = try #require(try temp.db.introspector.table(model.tableName))
                let postgresInfo = try #require(try postgres.table(model.tableName))
                #expect(Shape(sqliteInfo) == Shape(postgresInfo), "\(model)")
                let metadata = try ModelMetadata.of(model)
                for property in metadata.properties {
                    let sqliteType = sqliteInfo.column(named: property.column)?.declaredType
                    let postgresType = postgresInfo.column(named: property.column)?.declaredType
                    #expect(sqliteType == SQLiteDialect().columnType(property.columnType, format: property.formatKind, strict: false),
                            "\(model).\(property.name)")
                    let expected = PostgresDialect().columnType(property.columnType, format: property.formatKind, strict: false)
                    #expect(postgresType.map(Self.catalogSpelling) == Self.catalogSpelling(expected), "\(model).\(property.name)")
                }
            }
            // The shapes compared are not empty: what both engines hold for a few of the models, spelled out.
            let pet = Shape(try #require(try postgres.table("rt_pet")))
            #expect(pet.foreignKeys == ["breeder -> rt_owner.id ON DELETE RESTRICT", "groomer -> rt_owner.id ON DELETE NO ACTION",
                                        "owner -> rt_owner.id ON DELETE CASCADE", "vet -> rt_owner.id ON DELETE SET NULL"])
            let indexed = Shape(try #require(try temp.db.introspector.table("rt_indexed")))
            #expect(indexed.indices.count == 4 && indexed.indices.filter { $0.contains("unique=true") }.count == 2, "\(indexed)")
            let membership = Shape(try #require(try postgres.table("rt_membership")))
            #expect(membership.columns.prefix(2) == ["owner null=false pk=1", "node null=false pk=2"], "\(membership)")
            #expect(Shape(try #require(try postgres.table("rt_optionals"))).columns.filter { $0.contains("null=true") }.count == 10)
        }
    }

    /// How `format_type` spells a type the DDL names otherwise.
    static func catalogSpelling(_ type: String) -> String {
        switch type.uppercased() {
        case "TIMESTAMPTZ", "TIMESTAMP WITH TIME ZONE": "timestamp with time zone"
        default: type.lowercased()
        }
    }
}
