namespace PerfLab.Database;

/// <summary>What a database holds, as far as perflab is concerned.</summary>
public sealed record SeedState(
    bool DatabaseExists,
    int? SchemaVersion,
    long? Seed,
    string? Checksum,
    DateTimeOffset? SeededAt,
    long Products,
    long OrderHeaders,
    long OrderDetails)
{
    /// <summary>Seeded with the schema version, seed and data this perflab would write.</summary>
    public bool IsCurrent => SchemaVersion == Seeder.SchemaVersion && Seed == (long)AdventureWorksData.DefaultSeed
                             && Checksum == Seeder.DataChecksum;

    /// <summary>Whether perflab's marker or any of its rows are there (a re-seed replaces them).</summary>
    public bool HasContent => SchemaVersion is not null || Products + OrderHeaders + OrderDetails > 0;

    /// <summary>The row count of each seeded table, keyed "Schema.Table", in load order.</summary>
    public IReadOnlyDictionary<string, long> Rows => new Dictionary<string, long>
    {
        [Tables.Product.DisplayName] = Products,
        [Tables.SalesOrderHeader.DisplayName] = OrderHeaders,
        [Tables.SalesOrderDetail.DisplayName] = OrderDetails,
    };

    /// <summary>"current", "not seeded" or "stale: schema vN, perflab expects vM".</summary>
    public string Describe() => (DatabaseExists, SchemaVersion) switch
    {
        (false, _) => "not seeded (database missing)",
        (true, null) when Products + OrderHeaders + OrderDetails > 0 => "stale: tables without a schema marker",
        (true, null) => "not seeded",
        _ when IsCurrent => $"current (schema v{SchemaVersion})",
        _ when SchemaVersion == Seeder.SchemaVersion && Checksum != Seeder.DataChecksum =>
            "stale: its rows differ from the data this perflab generates (checksum)",
        _ => $"stale: schema v{SchemaVersion}, perflab expects v{Seeder.SchemaVersion}",
    };
}
