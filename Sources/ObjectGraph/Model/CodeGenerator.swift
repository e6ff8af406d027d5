// Code generation: Swift source for typed managed object classes of a model, as Xcode generates
// them (a class file and a properties file per entity with a class, plus one file that registers
// the classes). Used by `objectgraph codegen` and by the ObjectGraphCodegen build tool plugin.
import Foundation

/// Writes typed managed object subclasses for the entities of a model.
///
/// ```swift
/// let generator = CodeGenerator(model: model, modelName: "Organizer")
/// for file in generator.files() {
///     try file.contents.write(to: folder.appendingPathComponent(file.name), atomically: true, encoding: .utf8)
/// }
/// ```
///
/// Each entity with a class name (`representedClassName`, module prefix dropped) gets a class
/// whose properties reach their slots by index: the index of the property in the entity's
/// ``EntityLayout`` when the code was generated. `<Model>Classes.register()` hands the classes,
/// with the slot names they were generated for, to ``ObjectClasses``, which checks them against
/// the model in use. Entities without a class name use ``ManagedObject``.
public struct CodeGenerator {
    /// The access level of the generated declarations.
    public enum AccessLevel: String, CaseIterable, Sendable {
        /// Public accessors and open classes, for use from other modules.
        case `public`
        /// Internal declarations, for use inside the module that compiles them.
        case `internal`
    }

    /// A generated source file.
    public struct File: Sendable, Hashable {
        /// The file name, without a folder (`Person+CoreDataClass.swift`).
        public var name: String
        /// The Swift source.
        public var contents: String
    }

    /// The model the classes are generated from.
    public let model: ManagedObjectModel
    /// The model's name (its file name without extension), which names the registration enum.
    public let modelName: String
    /// The access level of the generated declarations.
    public let accessLevel: AccessLevel
    /// Whether an entity's Codegen setting is honoured: a `category` entity then gets only its
    /// properties (its class is written by hand); otherwise every entity gets both, as Xcode's
    /// "Create NSManagedObject Subclass" does.
    public let followsCodeGenerationType: Bool

    /// A generator for `model`, whose file is named `modelName`.
    public init(model: ManagedObjectModel, modelName: String, accessLevel: AccessLevel = .public,
                followsCodeGenerationType: Bool = false) {
        self.model = model
        self.modelName = modelName
        self.accessLevel = accessLevel
        self.followsCodeGenerationType = followsCodeGenerationType
    }

    /// The name of the model at `url`: the `.xcdatamodeld` bundle's name, or the `.xcdatamodel`
    /// folder's when it is not in a bundle (`contents` files count as their folder).
    public static func modelName(of url: URL) -> String {
        var model = url.standardizedFileURL
        if model.lastPathComponent == "contents" { model = model.deletingLastPathComponent() }
        if model.pathExtension == "xcdatamodel", model.deletingLastPathComponent().pathExtension == "xcdatamodeld" {
            model = model.deletingLastPathComponent()
        }
        return model.deletingPathExtension().lastPathComponent
    }

    /// Xcode's files: `<Class>+CoreDataClass.swift` and `<Class>+CoreDataProperties.swift` per
    /// entity with a class, then `<Model>+Classes.swift`, which registers them.
    public func files() -> [File] {
        var files: [File] = []
        for entity in classEntities {
            let name = className(of: entity)!
            if writesClass(of: entity) {
                files.append(File(name: "\(name)+CoreDataClass.swift",
                                  contents: header("the class of entity \(entity.name)") + "import ObjectGraph\n\n"
                                      + classDeclaration(entity)))
            }
            files.append(File(name: "\(name)+CoreDataProperties.swift",
                              contents: header("the properties of entity \(entity.name)") + imports
                                  + [propertiesExtension(entity), slotsEnum(entity)].filter { !$0.isEmpty }.joined(separator: "\n")))
        }
        files.append(File(name: "\(modelName)+Classes.swift",
                          contents: header("the registration of its classes") + "import ObjectGraph\n\n" + registry))
        return files
    }

    /// Everything in one file, `<Model>+Generated.swift`: what a build tool plugin declares as
    /// its output before it runs.
    public func singleFile() -> File {
        var parts: [String] = []
        for entity in classEntities {
            if writesClass(of: entity) { parts.append(classDeclaration(entity)) }
            parts.append(propertiesExtension(entity))
            parts.append(slotsEnum(entity))
        }
        parts.append(registry)
        return File(name: "\(modelName)+Generated.swift",
                    contents: header("its classes, their properties and their registration") + imports
                        + parts.filter { !$0.isEmpty }.joined(separator: "\n"))
    }

    /// Properties whose names the generated accessors cannot take, because ``ManagedObject``
    /// already uses them, as `Entity.property: ...` messages. Empty when the code will compile.
    public var problems: [String] {
        problemIssues.map { issue in
            [issue.entity, issue.property].compactMap { $0 }.joined(separator: ".") + ": " + issue.message
        }
    }

    /// ``problems`` as model issues, each with the file and line of the property or entity.
    public var problemIssues: [ModelIssue] {
        var issues: [ModelIssue] = []
        for entity in classEntities {
            if let name = className(of: entity), !Self.isIdentifier(name) {
                issues.append(ModelIssue(.error, .invalidValue,
                                         "the class name \"\(name)\" is not a Swift identifier; give the entity another class name",
                                         location: entity.sourceLocation, entity: entity.name))
            }
            for property in accessorProperties(of: entity) where Accessor.hasAccessor(property) && !Self.isIdentifier(property.name) {
                issues.append(ModelIssue(.error, .invalidValue,
                                         "\"\(property.name)\" is not a Swift identifier, so the generated code cannot name it; rename the property",
                                         location: property.sourceLocation ?? entity.sourceLocation, entity: entity.name, property: property.name))
            }
            if let name = className(of: entity), Self.shadowedTypeNames.contains(name) {
                issues.append(ModelIssue(.error, .invalidValue,
                                         "the class name \"\(name)\" would hide the Swift or Foundation type the generated code uses; give the entity another class name",
                                         location: entity.sourceLocation, entity: entity.name))
            }
            for property in accessorProperties(of: entity) where Accessor.hasAccessor(property) && Self.reservedNames.contains(property.name) {
                issues.append(ModelIssue(.error, .invalidValue,
                                         "ManagedObject already has a member named \"\(property.name)\"; rename the property",
                                         location: property.sourceLocation ?? entity.sourceLocation, entity: entity.name, property: property.name))
            }
        }
        return issues
    }

    /// Whether `name` can name a Swift type or property (a reserved word is written in
    /// backticks): a letter or `_`, then letters, digits and `_`.
    static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first == "_" || first.properties.isAlphabetic else { return false }
        return name.unicodeScalars.allSatisfy { $0 == "_" || $0.properties.isAlphabetic || $0.properties.numericType == .decimal }
    }

    /// Type names the generated code writes unqualified: a class of one of these names would
    /// take its place in the module.
    static let shadowedTypeNames: Set<String> = [
        "String", "Bool", "Int", "Int16", "Int32", "Int64", "Double", "Float", "Decimal", "Date", "Data", "UUID", "URL",
        "Any", "Set", "Array", "Dictionary", "Optional", "OrderedSet", "ObjectID", "ManagedObject", "ObjectClasses",
        "FetchRequest", "EntityDescription", "ManagedObjectContext",
    ]

    // MARK: Entities and names

    /// Members of ManagedObject a generated property would clash with.
    static let reservedNames: Set<String> = [
        "entity", "objectID", "managedObjectContext", "isInserted", "isDeleted", "isUpdated", "isFault",
        "hasChanges", "hasPersistentChangedValues", "description", "hashValue", "entityName",
    ]

    /// Entities that get a class, one per class name (the first entity naming it), in model order.
    var classEntities: [EntityDescription] {
        var seen: Set<String> = []
        return model.entities.filter { entity in
            guard let name = className(of: entity) else { return false }
            return seen.insert(name).inserted
        }
    }

    /// The entity's class name without a module prefix; nil when the entity has none of its own
    /// (none declared, or its parent's: a sub-entity may share its ancestor's class).
    func className(of entity: EntityDescription) -> String? {
        guard let name = declaredClassName(of: entity) else { return nil }
        if entity.ancestors.contains(where: { declaredClassName(of: $0) == name }) { return nil }
        return name
    }

    /// The class name the entity declares, without a module prefix.
    private func declaredClassName(of entity: EntityDescription) -> String? {
        guard let declared = entity.managedObjectClassName else { return nil }
        let name = declared.split(separator: ".").last.map(String.init) ?? ""
        guard !name.isEmpty, name != "NSManagedObject", name != "ManagedObject" else { return nil }
        return name
    }

    /// The properties the entity's class has accessors for: those the entity declares, after
    /// those of its ancestors that have no class, up to the one whose class it subclasses.
    func accessorProperties(of entity: EntityDescription) -> [PropertyDescription] {
        let classless = entity.ancestors.prefix { className(of: $0) == nil }
        return classless.reversed().flatMap(\.declaredProperties) + entity.declaredProperties
    }

    /// The class of the entity's closest ancestor that has one, or ManagedObject.
    func parentClassName(of entity: EntityDescription) -> String {
        entity.ancestors.lazy.compactMap(className(of:)).first ?? "ManagedObject"
    }

    /// The class that represents objects of `entity` (a relationship's destination).
    func objectClassName(of entity: EntityDescription?) -> String {
        guard let entity else { return "ManagedObject" }
        return className(of: entity) ?? parentClassName(of: entity)
    }

    /// Whether the entity's class declaration is generated (not written by hand).
    func writesClass(of entity: EntityDescription) -> Bool {
        !followsCodeGenerationType || entity.codeGenerationType != "category"
    }

    /// The model name as a Swift identifier, which names the registration enum.
    var registryName: String {
        let characters = modelName.map { $0.isLetter || $0.isNumber || $0 == "_" ? $0 : "_" }
        let name = String(characters)
        return name.first?.isNumber == false ? name : "_" + name
    }

    /// `public ` or nothing.
    var access: String { accessLevel == .public ? "public " : "" }

    /// The opening comment of a generated file.
    func header(_ what: String) -> String {
        let version = model.versionName.map { " (version \($0))" } ?? ""
        return """
            // Generated by ObjectGraph from the \(modelName) model\(version): \(what).
            // Do not edit: it is regenerated from the model; put your own code in extensions.

            """
    }

    let imports = "import Foundation\nimport ObjectGraph\n\n"

    // MARK: Declarations

    /// `open class Person: ManagedObject { ... }`.
    func classDeclaration(_ entity: EntityDescription) -> String {
        let name = className(of: entity)!
        let (classAccess, memberAccess) = accessLevel == .public ? ("open ", "open ") : ("", "")
        return """
            /// Objects of the entity \(entity.name).
            \(classAccess)class \(name): \(parentClassName(of: entity)) {
                override \(memberAccess)class var entityName: String { \(Self.literal(entity.name)) }
            }

            """
    }

    /// The extension holding the accessors of ``accessorProperties(of:)`` (other inherited ones
    /// come from the parent class's extension).
    func propertiesExtension(_ entity: EntityDescription) -> String {
        let name = className(of: entity)!
        let layout = entity.layout
        var members: [String] = []
        for property in accessorProperties(of: entity) where layout.properties.contains(where: { $0 === property }) {
            let accessor = Accessor(property: property, slot: "\(slotsName(entity)).\(Self.identifier(property.name))",
                                    generator: self)
            members.append(contentsOf: accessor.declarations)
        }
        let body = members.map { $0.split(separator: "\n", omittingEmptySubsequences: false).map { "    " + $0 }.joined(separator: "\n") }
        return "extension \(name) {\n" + body.joined(separator: "\n\n") + (body.isEmpty ? "" : "\n") + "}\n"
    }

    /// The name of the enum of the entity's slot indexes (`PersonSlots`).
    func slotsName(_ entity: EntityDescription) -> String { className(of: entity)! + "Slots" }

    /// `enum PersonSlots { static let name = 0 ... }`: the slots of ``accessorProperties(of:)``;
    /// empty when there are none.
    func slotsEnum(_ entity: EntityDescription) -> String {
        let layout = entity.layout
        let lines = accessorProperties(of: entity).compactMap { property -> String? in
            guard Accessor.hasAccessor(property),
                  let slot = layout.properties.firstIndex(where: { $0 === property }) else { return nil }
            return "    static let \(Self.identifier(property.name)) = \(slot)"
        }
        guard !lines.isEmpty else { return "" }
        return """
            /// Slots of \(entity.name)'s properties in its layout (inherited properties first).
            enum \(slotsName(entity)) {
            \(lines.joined(separator: "\n"))
            }

            """
    }

    /// `public enum OrganizerClasses { ... }`: the classes and their registration.
    var registry: String {
        let entries = classEntities.map { entity in
            let names = entity.layout.properties.map { Self.literal($0.name) }.joined(separator: ", ")
            return "            ObjectGraph.ObjectClasses.GeneratedClass(\(className(of: entity)!).self, slotNames: [\(names)]),"
        }
        return """
            /// The classes generated from the \(modelName) model. Call `register()` once at startup,
            /// before the first fetch, so that contexts make objects of these classes.
            \(access)enum \(registryName)Classes {
                /// Each class with the slot names its accessors were generated for.
                \(access)static var all: [ObjectGraph.ObjectClasses.GeneratedClass] {
                    [
            \(entries.joined(separator: "\n"))
                    ]
                }

                /// Registers every class with ``ObjectClasses``.
                \(access)static func register() {
                    ObjectGraph.ObjectClasses.register(all)
                }
            }

            """
    }

    // MARK: Swift spelling

    /// Swift's reserved words, which a property name must be escaped from.
    static let keywords: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init",
        "inout", "internal", "let", "open", "operator", "private", "precedencegroup", "protocol", "public",
        "rethrows", "static", "struct", "subscript", "typealias", "var", "break", "case", "catch",
        "continue", "default", "defer", "do", "else", "fallthrough", "for", "guard", "if", "in", "repeat",
        "return", "throw", "switch", "where", "while", "Any", "as", "false", "is", "nil", "self", "Self",
        "super", "throws", "true", "try", "await", "consume", "copy", "borrowing", "consuming",
    ]

    /// `name`, in backticks when it is a reserved word.
    static func identifier(_ name: String) -> String {
        keywords.contains(name) ? "`\(name)`" : name
    }

    /// `name` as a Swift string literal.
    static func literal(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
