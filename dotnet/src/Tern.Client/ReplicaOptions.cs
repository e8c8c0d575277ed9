namespace Tern.Client;

/// <summary>Options of <see cref="Collection.GetAnyReplicaAsync"/>.</summary>
public sealed record GetAnyReplicaOptions : TranscodingOptions;

/// <summary>Options of <see cref="Collection.GetAllReplicasAsync"/>.</summary>
public sealed record GetAllReplicasOptions : TranscodingOptions;

/// <summary>Options of <see cref="Collection.LookupInAnyReplicaAsync"/>.</summary>
public sealed record LookupInAnyReplicaOptions : TranscodingOptions;

/// <summary>Options of <see cref="Collection.LookupInAllReplicasAsync"/>.</summary>
public sealed record LookupInAllReplicasOptions : TranscodingOptions;
