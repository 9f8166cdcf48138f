// swift-tools-version:6.0
import PackageDescription

// A JSON API over Strata models on Hummingbird 2, kept apart from the library's package so that the
// library's build stays light. Run it from here: `swift run -c release strata-server`.
let package = Package(
    name: "StrataServer",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "Strata", path: "../.."),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        .executableTarget(
            name: "strata-server",
            dependencies: [
                .product(name: "Strata", package: "Strata"),
                .product(name: "StrataPostgres", package: "Strata"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/StrataServer"
        ),
    ],
    swiftLanguageModes: [.v6]
)
