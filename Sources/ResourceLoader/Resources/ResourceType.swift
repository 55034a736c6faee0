/// Something an app consumes, described by the typed model it becomes.
///
/// `ResourceType` is the root of the resource protocols. On its own it only names the
/// ``Model``; refinements say how bytes become that model (``DataResourceType``,
/// ``JSONResourceType``, ``JSONDecodableResourceType``) and where the bytes live
/// (``NetworkResourceType``).
///
/// Resources are small values, usually structs, and are `Sendable` so they can be handed to a
/// service on any thread.
public protocol ResourceType: Sendable {
    /// The type a successful fetch produces.
    associatedtype Model: Sendable
}
