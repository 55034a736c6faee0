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
        PipelineFetch.forFetch(of: resource, through: pipeline)
    }

    /// The plan the attempts of a fetch of `resource` run with: the pipeline's adapters,
    /// authenticator and retry policy as the resource adjusts them, or an empty plan without
    /// pipeline hooks.
    func plan(for resource: Resource, options: TransferOptions, fetch: PipelineFetch?) -> FetchPlan {
        FetchPlan(for: resource, options: options, fetch: fetch)
    }
}

extension PipelineFetch {
    /// The pipeline's state for a fetch of `resource` through `pipeline`, when the fetch has
    /// hooks to run; `nil` without a pipeline, or through one that has none.
    static func forFetch<Resource: NetworkResourceType>(of resource: Resource, through pipeline: ResourcePipeline?) -> PipelineFetch? {
        guard let pipeline, pipeline.hasHooks || resource.retryPolicy(pipeline.retryPolicy).retries else { return nil }
        return PipelineFetch(pipeline: pipeline, resourceType: Resource.self)
    }
}

extension FetchPlan {
    /// The plan for a fetch of `resource`: the hooks of `fetch`'s pipeline as the resource
    /// adjusts them, or an empty plan without a pipeline fetch.
    init<Resource: NetworkResourceType>(for resource: Resource, options: TransferOptions, fetch: PipelineFetch?) {
        guard let pipeline = fetch?.pipeline else {
            self.init(options: options)
            return
        }
        self.init(
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
