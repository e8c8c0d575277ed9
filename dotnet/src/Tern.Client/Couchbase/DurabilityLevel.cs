namespace Tern.Client;

/// <summary>How durable a mutation must be before the server answers it (the DurabilityRequirement frame).</summary>
public enum DurabilityLevel : byte
{
    None = 0,
    Majority = 1,
    MajorityAndPersistToActive = 2,
    PersistToMajority = 3,
}
