// Writes a ManagedObjectModel as the XML of an Xcode model file, in the element and attribute
// order Xcode uses, so that read, write, read gives an equal model and Xcode opens the result.
import Foundation

enum ModelFileWriter {
    static func xml(for model: ManagedObjectModel) -> String {
        var out = XMLOutput()
        out.line("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>")
        let info = model.documentInfo
        var rootAttributes: [(String, String?)] = [
            ("type", "com.apple.IDECoreDataModeler.DataModel"),
            ("documentVersion", info.documentVersion),
            ("lastSavedToolsVersion", info.lastSavedToolsVersion),
            ("systemVersion", info.systemVersion),
            ("minimumToolsVersion", info.minimumToolsVersion),
            ("sourceLanguage", info.sourceLanguage),
            ("userDefinedModelVersionIdentifier", model.versionIdentifiers.sorted().first ?? ""),
        ]
        if info.usedWithCloudKit { rootAttributes.append(("usedWithCloudKit", "YES")) }
        if info.usedWithSwiftData { rootAttributes.append(("usedWithSwiftData", "YES")) }
        out.open("model", rootAttributes)
        for entity in model.entities { write(entity, to: &out) }
        for composite in model.compositeTypes {
            if composite.attributes.isEmpty {
                out.empty("composite", [("name", composite.name)])
            } else {
                out.open("composite", [("name", composite.name)])
                for attribute in composite.attributes { write(attribute, to: &out) }
                out.close("composite")
            }
        }
        for template in model.fetchRequestTemplates { write(template, to: &out) }
        for configuration in model.configurations {
            let attributes: [(String, String?)] = [("name", configuration.name),
                                                   ("usedWithCloudKit", configuration.usedWithCloudKit ? "YES" : nil)]
            if configuration.entityNames.isEmpty {
                out.empty("configuration", attributes)
            } else {
                out.open("configuration", attributes)
                for member in configuration.entityNames { out.empty("memberEntity", [("name", member)]) }
                out.close("configuration")
            }
        }
        out.close("model")
        return out.text
    }

    private static func yes(_ flag: Bool) -> String? { flag ? "YES" : nil }

    private static func write(_ entity: EntityDescription, to out: inout XMLOutput) {
        let attributes: [(String, String?)] = [
            ("name", entity.name),
            ("representedClassName", entity.managedObjectClassName),
            ("parentEntity", entity.parentEntityName),
            ("isAbstract", yes(entity.isAbstract)),
            ("elementID", entity.renamingIdentifier),
            ("versionHashModifier", entity.versionHashModifier),
            ("codeGenerationType", entity.codeGenerationType),
        ]
        let isEmpty = entity.declaredProperties.isEmpty && entity.fetchIndexes.isEmpty && entity.compoundIndexes.isEmpty
            && entity.declaredUniquenessConstraints.isEmpty && entity.userInfo.isEmpty
        if isEmpty {
            out.empty("entity", attributes)
            return
        }
        out.open("entity", attributes)
        for property in entity.declaredProperties {
            switch property {
            case let attribute as AttributeDescription: write(attribute, to: &out)
            case let relationship as RelationshipDescription: write(relationship, to: &out)
            case let fetched as FetchedPropertyDescription:
                out.open("fetchedProperty", [("name", fetched.name), ("optional", yes(fetched.isOptional))] + common(fetched))
                write(fetched.fetchRequest, to: &out)
                writeUserInfo(fetched.userInfo, to: &out)
                out.close("fetchedProperty")
            default: break
            }
        }
        for index in entity.fetchIndexes {
            out.open("fetchIndex", [("name", index.name)])
            for element in index.elements {
                out.empty("fetchIndexElement", [("property", element.propertyName), ("expression", element.expression),
                                                 ("expressionType", element.expressionType), ("type", element.type.rawValue),
                                                 ("order", element.isAscending ? "ascending" : "descending")])
            }
            out.close("fetchIndex")
        }
        if !entity.compoundIndexes.isEmpty {
            out.open("compoundIndexes", [])
            for index in entity.compoundIndexes {
                out.open("compoundIndex", [])
                for name in index { out.empty("index", [("value", name)]) }
                out.close("compoundIndex")
            }
            out.close("compoundIndexes")
        }
        if !entity.declaredUniquenessConstraints.isEmpty {
            out.open("uniquenessConstraints", [])
            for constraint in entity.declaredUniquenessConstraints {
                out.open("uniquenessConstraint", [])
                for name in constraint { out.empty("constraint", [("value", name)]) }
                out.close("uniquenessConstraint")
            }
            out.close("uniquenessConstraints")
        }
        writeUserInfo(entity.userInfo, to: &out)
        out.close("entity")
    }

    private static func common(_ property: PropertyDescription) -> [(String, String?)] {
        [("elementID", property.renamingIdentifier), ("versionHashModifier", property.versionHashModifier),
         ("indexed", yes(property.isIndexed)), ("spotlightIndexingEnabled", yes(property.isIndexedBySpotlight)),
         ("storedInTruthFile", yes(property.isStoredInExternalRecord))]
    }

    private static func write(_ attribute: AttributeDescription, to out: inout XMLOutput) {
        let type = attribute.attributeType
        var attributes: [(String, String?)] = [
            ("name", attribute.name),
            ("optional", yes(attribute.isOptional)),
            ("transient", yes(attribute.isTransient)),
            ("attributeType", type == .undefined ? nil : type.xcodeName),
        ]
        if type == .date {
            attributes += [("minDateTimeInterval", attribute.minimumDate.map { AttributeValueParser.formatNumber($0.timeIntervalSinceReferenceDate) }),
                           ("maxDateTimeInterval", attribute.maximumDate.map { AttributeValueParser.formatNumber($0.timeIntervalSinceReferenceDate) }),
                           ("defaultDateTimeInterval", (attribute.defaultValue as? Date).map { AttributeValueParser.formatNumber($0.timeIntervalSinceReferenceDate) })]
        } else {
            attributes += [("minValueString", attribute.minimumValue.map { "\($0)" }),
                           ("maxValueString", attribute.maximumValue.map { "\($0)" }),
                           ("defaultValueString", attribute.defaultValue.map { AttributeValueParser.format($0, as: type) })]
        }
        attributes += [
            ("regularExpressionString", attribute.regularExpression),
            ("usesScalarValueType", attribute.usesScalarValueType.map { $0 ? "YES" : "NO" }),
            ("valueTransformerName", attribute.valueTransformerName),
            ("customClassName", attribute.attributeValueClassName),
            ("allowsExternalBinaryDataStorage", yes(attribute.allowsExternalBinaryDataStorage)),
            ("preserveAfterDeletion", yes(attribute.preservesValueInHistoryOnDeletion)),
            ("derived", yes(attribute.isDerived)),
            ("derivationExpression", attribute.derivationExpression),
            ("composite", attribute.compositeName),
        ] + common(attribute)
        if attribute.userInfo.isEmpty && attribute.validationPredicates.isEmpty {
            out.empty("attribute", attributes)
            return
        }
        out.open("attribute", attributes)
        for rule in attribute.validationPredicates {
            out.empty("validationPredicate", [("predicateString", rule.predicateFormat), ("warning", rule.warning)])
        }
        writeUserInfo(attribute.userInfo, to: &out)
        out.close("attribute")
    }

    private static func write(_ relationship: RelationshipDescription, to out: inout XMLOutput) {
        let attributes: [(String, String?)] = [
            ("name", relationship.name),
            ("optional", yes(relationship.isOptional)),
            ("transient", yes(relationship.isTransient)),
            ("toMany", yes(relationship.isToMany)),
            ("minCount", relationship.minCount > 0 ? "\(relationship.minCount)" : nil),
            ("maxCount", relationship.isToMany ? (relationship.maxCount > 0 ? "\(relationship.maxCount)" : nil) : "1"),
            ("deletionRule", relationship.deleteRule.xcodeName),
            ("ordered", yes(relationship.isOrdered)),
            ("destinationEntity", relationship.destinationEntityName),
            ("inverseName", relationship.inverseName),
            ("inverseEntity", relationship.inverseName == nil ? nil : (relationship.inverseEntityName ?? relationship.destinationEntityName)),
        ] + common(relationship)
        if relationship.userInfo.isEmpty {
            out.empty("relationship", attributes)
        } else {
            out.open("relationship", attributes)
            writeUserInfo(relationship.userInfo, to: &out)
            out.close("relationship")
        }
    }

    private static func write(_ template: FetchRequestTemplate, to out: inout XMLOutput) {
        var attributes: [(String, String?)] = [("name", template.name), ("entity", template.entityName),
                                               ("predicateString", template.predicateFormat)]
        if template.fetchLimit != 0 { attributes.append(("fetchLimit", "\(template.fetchLimit)")) }
        if template.fetchBatchSize != 0 { attributes.append(("fetchBatchSize", "\(template.fetchBatchSize)")) }
        if template.resultType != 0 { attributes.append(("resultType", "\(template.resultType)")) }
        if !template.includesSubentities { attributes.append(("includesSubentities", "NO")) }
        if !template.includesPropertyValues { attributes.append(("includesPropertyValues", "NO")) }
        if !template.returnsObjectsAsFaults { attributes.append(("returnsObjectsAsFaults", "NO")) }
        if !template.includesPendingChanges { attributes.append(("includesPendingChanges", "NO")) }
        if template.returnsDistinctResults { attributes.append(("returnsDistinctResults", "YES")) }
        out.empty("fetchRequest", attributes)
    }

    private static func writeUserInfo(_ info: [String: String], to out: inout XMLOutput) {
        guard !info.isEmpty else { return }
        out.open("userInfo", [])
        for key in info.keys.sorted() { out.empty("entry", [("key", key), ("value", info[key])]) }
        out.close("userInfo")
    }
}

/// Indented XML text, four spaces a level, as Xcode writes model files.
struct XMLOutput {
    private(set) var text = ""
    private var depth = 0

    mutating func line(_ content: String) {
        text += String(repeating: "    ", count: depth) + content + "\n"
    }

    mutating func open(_ name: String, _ attributes: [(String, String?)]) {
        line("<\(name)\(Self.format(attributes))>")
        depth += 1
    }

    mutating func close(_ name: String) {
        depth -= 1
        line("</\(name)>")
    }

    mutating func empty(_ name: String, _ attributes: [(String, String?)]) {
        line("<\(name)\(Self.format(attributes))/>")
    }

    static func format(_ attributes: [(String, String?)]) -> String {
        attributes.compactMap { name, value in value.map { " \(name)=\"\(escape($0))\"" } }.joined()
    }

    /// Escapes text for a double-quoted attribute value; newlines and tabs survive a re-read.
    /// Scalar by scalar: "\r\n" is one Character, which would match neither line break.
    static func escape(_ value: String) -> String {
        var result = ""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "\n": result += "&#10;"
            case "\r": result += "&#13;"
            case "\t": result += "&#9;"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}

extension ManagedObjectModel {
    /// The model as the XML of an Xcode `contents` file.
    public func xmlString() -> String { ModelFileWriter.xml(for: self) }

    /// Writes the model in Xcode's format at `url`: into a `.xcdatamodeld` bundle as version
    /// `versionName` (default: the model's version name, or the bundle's name) made current,
    /// keeping the bundle's other versions; as a `.xcdatamodel` package; or as a bare file.
    public func write(to url: URL, versionName: String? = nil) throws {
        let manager = FileManager.default
        let contents: URL
        switch url.pathExtension {
        case "xcdatamodeld":
            var name = versionName ?? self.versionName ?? url.deletingPathExtension().lastPathComponent
            // A version may be named with its extension, as when it is read.
            if name.hasSuffix(".xcdatamodel") { name = String(name.dropLast(".xcdatamodel".count)) }
            let package = url.appendingPathComponent("\(name).xcdatamodel", isDirectory: true)
            try manager.createDirectory(at: package, withIntermediateDirectories: true)
            contents = package.appendingPathComponent("contents")
            let plist = """
                <?xml version="1.0" encoding="UTF-8"?>
                <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
                <plist version="1.0">
                <dict>
                \t<key>_XCCurrentVersionName</key>
                \t<string>\(XMLOutput.escape(name)).xcdatamodel</string>
                </dict>
                </plist>

                """
            try Data(plist.utf8).write(to: url.appendingPathComponent(".xccurrentversion"), options: .atomic)
        case "xcdatamodel":
            try manager.createDirectory(at: url, withIntermediateDirectories: true)
            contents = url.appendingPathComponent("contents")
        default:
            contents = url
        }
        let xml = xmlString()
        // XML 1.0 has no way to hold most control characters, not even escaped: a model string
        // holding one would be written into a file no reader accepts.
        if let bad = xml.unicodeScalars.first(where: { $0.value < 0x20 && !["\t", "\n", "\r"].contains($0) }) {
            throw ModelError.notAModel(path: contents.path, reason: String(format: "a name or value of the model holds the control character U+%04X, which XML cannot hold", bad.value))
        }
        try Data(xml.utf8).write(to: contents, options: .atomic)
    }
}
