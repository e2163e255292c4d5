using PerfLab.Sut.Hosting;

namespace PerfLab.Sut.Data;

/// <summary>The data layers every framework build offers: EF Core (seed 000's app) and Npgsql's ADO.NET API.</summary>
public static class DataLayers
{
    public static readonly IReadOnlyList<DataLayerKind> Available = [DataLayerKind.EfCore, DataLayerKind.AdoNet];

    /// <summary>The data layer used when none is asked for: seed 000's EF Core.</summary>
    public static DataLayerKind Default => DataLayerKind.EfCore;
}
