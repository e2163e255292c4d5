using PerfLab.Sut.Hosting;

namespace PerfLab.Sut.Data;

/// <summary>The data layers this build offers: EF Core only where the package source has a provider for the framework.</summary>
public static class DataLayers
{
#if NET10_0_OR_GREATER
    public static readonly IReadOnlyList<DataLayerKind> Available = [DataLayerKind.EfCore, DataLayerKind.AdoNet];
#else
    public static readonly IReadOnlyList<DataLayerKind> Available = [DataLayerKind.AdoNet];
#endif

    /// <summary>The data layer used when none is asked for: seed 000's EF Core where the build has it.</summary>
    public static DataLayerKind Default => Available[0];

    /// <summary>This build's target framework, as the experiments name it (net8.0, net9.0, net10.0).</summary>
#if NET10_0_OR_GREATER
    public const string Build = "net10.0";
#elif NET9_0
    public const string Build = "net9.0";
#else
    public const string Build = "net8.0";
#endif

    /// <summary>Why the net8.0/net9.0 builds have no EF Core (said where a user asks for it there).</summary>
    public const string WhyOnlyAdoNet =
        "the package source holds the Npgsql EF Core provider 8.0.0 and 10.0.0 only; 8.0.0 needs Npgsql 8.x, which is " +
        "missing (with Npgsql 9.0.3 it fails at its first query), and there is no 9.x, so the net8.0 and net9.0 builds " +
        "read PostgreSQL through Npgsql's ADO.NET API only.";
}
