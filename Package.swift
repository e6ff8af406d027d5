// swift-tools-version:6.0
// ObjectGraph: Core Data's object graph and persistence for Linux, and pim, the
// personal information manager built on it. See README.md and ../shared/ARCHITECTURE.md.
import PackageDescription

let package = Package(
    name: "ObjectGraph",
    products: [
        .library(name: "ObjectGraph", targets: ["ObjectGraph"]),
        .executable(name: "objectgraph", targets: ["objectgraph"]),
        .library(name: "FeedImport", targets: ["FeedImport"]),
        .library(name: "PIM", targets: ["PIM"]),
        .executable(name: "pim", targets: ["pim"]),
        .plugin(name: "ObjectGraphCodegen", targets: ["ObjectGraphCodegen"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .systemLibrary(
            name: "CLibXML2",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"])]
        ),
        .target(
            name: "ObjectGraph",
            dependencies: ["CSQLite", "CLibXML2"]
        ),
        .executableTarget(
            name: "objectgraph",
            dependencies: [
                "ObjectGraph",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The tool the ObjectGraphCodegen plugin runs: typed classes from a target's model files.
        .executableTarget(
            name: "objectgraph-codegen",
            dependencies: ["ObjectGraph"]
        ),
        .plugin(
            name: "ObjectGraphCodegen",
            capability: .buildTool(),
            dependencies: ["objectgraph-codegen"]
        ),
        // Streaming import of web-service XML feeds through declarative mappings (Importers/feeds).
        .target(
            name: "FeedImport",
            dependencies: ["ObjectGraph", "CLibXML2"]
        ),
        // The PIM domain: its model (Data/PIM.xcdatamodeld, seen here through a symlink so that
        // the plugin generates its classes and the bundle ships as a resource), dates, recurrence,
        // urgency, record naming, the undo journal and presentation.
        .target(
            name: "PIM",
            dependencies: ["ObjectGraph", "FeedImport"],
            resources: [.embedInCode("PIM.xcdatamodeld/PIM 7.xcdatamodel/contents"),
                        // The feed mappings of Importers/feeds, seen through a symlink.
                        .embedInCode("Import/FeedMappings/atom-xcal.json"),
                        .embedInCode("Import/FeedMappings/dav.json"),
                        .embedInCode("Import/FeedMappings/ews.json"),
                        .embedInCode("Import/FeedMappings/gdata-calendar.json"),
                        .embedInCode("Import/FeedMappings/gdata-contacts.json"),
                        .embedInCode("Import/FeedMappings/icalendar.json"),
                        .embedInCode("Import/FeedMappings/rss-event.json"),
                        .embedInCode("Import/FeedMappings/rss-xcal.json"),
                        .embedInCode("Import/FeedMappings/vcard.json"),
                        .embedInCode("Import/FeedMappings/xcal.json"),
                        .embedInCode("Import/FeedMappings/xcard.json")],
            plugins: ["ObjectGraphCodegen"]
        ),
        // The `pim` command: parses arguments and prints; the work is in PIM.
        .executableTarget(
            name: "pim",
            dependencies: [
                "PIM",
                "FeedImport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "PIMTests",
            dependencies: ["PIM", "ObjectGraph"]
        ),
        // End-to-end tests: run the built `pim` binary on temporary stores.
        .testTarget(
            name: "pimTests",
            dependencies: []
        ),
        // A library whose classes the plugin generates at build time, tested by GeneratedModelTests.
        .target(
            name: "GeneratedModelFixture",
            dependencies: ["ObjectGraph"],
            path: "Tests/GeneratedModelFixture",
            resources: [.copy("Gardening.xcdatamodeld")],
            plugins: ["ObjectGraphCodegen"]
        ),
        .testTarget(
            name: "GeneratedModelTests",
            dependencies: ["GeneratedModelFixture", "ObjectGraph"]
        ),
        .testTarget(
            name: "FeedImportTests",
            dependencies: ["FeedImport", "ObjectGraph"]
        ),
        .testTarget(
            name: "ObjectGraphTests",
            dependencies: ["ObjectGraph"]
        ),
        .testTarget(
            name: "objectgraphTests",
            dependencies: ["ObjectGraph"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
