import Foundation
import Strata
import Testing

// CHANGELOG.md and the library agree: the first release heading is `StrataLibrary.version`, and every
// release has a date and a summary paragraph before its entries (issue 38, point 4).

@Suite struct Review19ChangelogTests {
    struct Release: Equatable {
        var version: String
        var date: String?
        /// The first non-blank line after the heading.
        var firstLine: String
    }

    static let changelog: String = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return (try? String(contentsOf: root.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)) ?? ""
    }()

    /// The `## [x.y.z] - YYYY-MM-DD` headings of a changelog, in order (`## [Unreleased]` left out).
    static func releases(_ text: String) -> [Release] {
        let lines = text.components(separatedBy: "\n")
        var found: [Release] = []
        for (index, line) in lines.enumerated() where line.hasPrefix("## [") {
            guard let close = line.firstIndex(of: "]") else { continue }
            let version = String(line[line.index(line.startIndex, offsetBy: 4)..<close])
            guard version.split(separator: ".").count == 3, version.split(separator: ".").allSatisfy({ Int($0) != nil })
            else { continue }
            let rest = line[line.index(after: close)...].trimmingCharacters(in: .whitespaces)
            let date = rest.hasPrefix("- ") ? String(rest.dropFirst(2)) : nil
            let next = lines[(index + 1)...].first { !$0.trimmingCharacters(in: .whitespaces).isEmpty } ?? ""
            found.append(Release(version: version, date: date, firstLine: next))
        }
        return found
    }

    /// A summary: prose, not a heading, an entry or the next release.
    static func isSummary(_ line: String) -> Bool {
        !line.isEmpty && !line.hasPrefix("#") && !line.hasPrefix("- ") && !line.hasPrefix("* ")
    }

    @Test func theFirstReleaseHeadingIsTheLibrarysVersion() throws {
        let releases = Self.releases(Self.changelog)
        let first = try #require(releases.first, "CHANGELOG.md has no ## [x.y.z] heading")
        #expect(first.version == StrataLibrary.version,
                "CHANGELOG.md's latest release is \(first.version), StrataLibrary.version is \(StrataLibrary.version)")
        // Unreleased, when there, sits above every release.
        if let unreleased = Self.changelog.range(of: "## [Unreleased]"), let latest = Self.changelog.range(of: "## [\(first.version)]") {
            #expect(unreleased.lowerBound < latest.lowerBound)
        }
    }

    @Test func everyReleaseHasADateAndASummaryAndVersionsGoDown() throws {
        let releases = Self.releases(Self.changelog)
        #expect(releases.count >= 9, "\(releases.map(\.version))")
        for release in releases {
            let date = release.date ?? ""
            #expect(date.wholeMatch(of: /\d{4}-\d{2}-\d{2}/) != nil, "release \(release.version) has no date: '\(date)'")
            #expect(Self.isSummary(release.firstLine), "release \(release.version) starts with '\(release.firstLine)', not a summary")
        }
        let numbers = releases.map { $0.version.split(separator: ".").map { Int($0) ?? 0 } }
        for (newer, older) in zip(numbers, numbers.dropFirst()) {
            #expect(newer.lexicographicallyPrecedes(older) == false && newer != older, "\(newer) is listed above \(older)")
        }
        let dates = releases.compactMap(\.date)
        #expect(dates == dates.sorted(by: >), "release dates go back in time: \(dates)")
    }

    /// The parser itself, on a changelog whose release lacks a summary and a date.
    @Test func theParserSeesAMissingDateAndSummary() {
        let text = "# Changelog\n\n## [Unreleased]\n\n## [1.2.3] - 2026-01-02\n\nSummary.\n\n### Added\n- x\n\n## [1.2.2]\n\n### Fixed\n- y\n"
        #expect(Self.releases(text) == [Release(version: "1.2.3", date: "2026-01-02", firstLine: "Summary."),
                                        Release(version: "1.2.2", date: nil, firstLine: "### Fixed")])
        #expect(!Self.isSummary("### Fixed") && Self.isSummary("Summary."))
    }
}
