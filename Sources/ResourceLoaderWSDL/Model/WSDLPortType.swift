/// A `wsdl:portType`: operations as messages in and out, before any binding says how they travel.
public struct WSDLPortType: Sendable, Hashable {
    /// One abstract operation of a port type.
    public struct Operation: Sendable, Hashable {
        /// The operation's name.
        public var name: String
        /// The operation's `wsdl:documentation`.
        public var documentation: String?
        /// The input message, if the operation has an input.
        public var input: QualifiedName?
        /// The output message, if the operation has an output.
        public var output: QualifiedName?
        /// The fault messages, by fault name, in document order.
        public var faults: [Fault]

        /// Makes an abstract operation.
        public init(name: String, documentation: String?, input: QualifiedName?, output: QualifiedName?, faults: [Fault]) {
            self.name = name
            self.documentation = documentation
            self.input = input
            self.output = output
            self.faults = faults
        }
    }

    /// A `wsdl:fault` of an abstract operation.
    public struct Fault: Sendable, Hashable {
        /// The fault's name, unique within its operation.
        public var name: String
        /// The message that carries the fault's detail.
        public var message: QualifiedName

        /// Makes an abstract fault.
        public init(name: String, message: QualifiedName) {
            self.name = name
            self.message = message
        }
    }

    /// The port type's name.
    public var name: QualifiedName
    /// The port type's `wsdl:documentation`.
    public var documentation: String?
    /// The operations, in document order.
    public var operations: [Operation]

    /// Makes a port type.
    public init(name: QualifiedName, documentation: String?, operations: [Operation]) {
        self.name = name
        self.documentation = documentation
        self.operations = operations
    }
}
