import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a fetch through a ``ResourcePipeline`` adds to the fetch core: the hooks of the pipeline
/// as the resource adjusts them.
extension ResourceService {
    /// The pipeline's state for a fetch of `resource`, when the fetch has hooks to run
    /// (adapters, a credential store, retries or monitors); `nil` for a service without a
    /// pipeline, or through a pipeline that has none, whose fetches run the core's plain path at
    /// its plain cost.
    func pipelineFetch(for resource: Resource) -> PipelineFetch? {
        guard let pipeline, pipeline.hasHooks || resource.retryPolicy(pipeline.retryPolicy).retries else { return nil }
        return PipelineFetch(pipeline: pipeline, resourceType: Resource.self)
    }

    /// The plan the attempts of a fetch of `resource` run with: the pipeline's adapters,
    /// authenticator and retry policy as the resource adjusts them, or an empty plan without
    /// pipeline hooks.
    func plan(for resource: Resource, options: TransferOptions, fetch: PipelineFetch?) -> FetchPlan {
        guard let pipeline = fetch?.pipeline else { return FetchPlan(options: options) }
        return FetchPlan(
            adapters: resource.usesPipelineAdapters ? pipeline.adapters : [],
            synchronousAdapters: resource.usesPipelineAdapters ? pipeline.synchronousAdapters : [],
            authentication: resource.usesPipelineAuthenticator
                ? (resource.requiresCredential ? pipeline.authentication : pipeline.optionalAuthentication)
                : nil,
            retryPolicy: resource.retryPolicy(pipeline.retryPolicy),
            options: options
        )
    }
}
