import Foundation
import StrataTestSupport
import Testing
@testable import Strata

final class CodableTeam: Model, Codable {
    var id: Int64 = 0
    var name = ""
    required init() {}
}

final class CodablePlayer: Model, Codable {
    var id: Int64 = 0
    var name = ""
    @Reference var team: CodableTeam?
    required init() {}
}

@Suite struct CodableModelTests {
    @Test func aModelWithAReferenceKeepsItsSynthesizedCodable() throws {
        let temp = try TestDatabase()
        let team = CodableTeam(); team.name = "Reds"
        try temp.db.save(team)
        let player = CodablePlayer(); player.name = "Ada"; player.team = team
        try temp.db.save(player)

        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = String(decoding: try encoder.encode(player), as: UTF8.self)
        #expect(json == #"{"id":1,"name":"Ada","team":1}"#)

        // Decoded: a detached instance holding the key; attached by a save, it resolves the relationship.
        let decoded = try JSONDecoder().decode(CodablePlayer.self, from: Data(#"{"id":0,"name":"Bo","team":1}"#.utf8))
        #expect(decoded.$team.key == .integer(1))
        try temp.db.save(decoded)
        #expect(decoded.team === team)
        #expect(try temp.db.value(Int.self, "SELECT team FROM \"CodablePlayer\" WHERE name = 'Bo'") == 1)

        let unset = CodablePlayer(); unset.name = "Cy"
        #expect(String(decoding: try encoder.encode(unset), as: UTF8.self) == #"{"id":0,"name":"Cy","team":null}"#)
        let decodedNull = try JSONDecoder().decode(CodablePlayer.self, from: Data(#"{"id":0,"name":"Cy","team":null}"#.utf8))
        #expect(decodedNull.$team.key == .null)
    }

    @Test func sqlValuesEncodeAsThemselves() throws {
        let values: [SQLValue] = [.integer(1), .real(1.5), .text("a"), .null]
        let json = String(decoding: try JSONEncoder().encode(values), as: UTF8.self)
        #expect(json == #"[1,1.5,"a",null]"#)
        #expect(try JSONDecoder().decode([SQLValue].self, from: Data(json.utf8)) == values)
    }
}
