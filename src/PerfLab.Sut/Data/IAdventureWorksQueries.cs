namespace PerfLab.Sut.Data;

/// <summary>
/// The reads behind seed 000's pages, by the data layer chosen at start (Sut:DataLayer): EF Core, as the seed's app, or
/// Npgsql's ADO.NET API, which every framework build has. Both send the same SQL shape (one query, details joined) and
/// return the same objects, details linked back to their order as EF Core's Include links them. Each query runs
/// awaited (<c>async: true</c>) or blocking (<c>false</c>), for the DataAccess variants (see <see cref="DataAccess"/>).
/// </summary>
public interface IAdventureWorksQueries
{
    Task<List<SalesOrderHeader>> OrdersPageAsync(int skip, int take, bool async, CancellationToken ct);
    Task<SalesOrderHeader?> OrderAsync(int id, bool async, CancellationToken ct);
    Task<List<int>> OrderIdsAsync(bool async, CancellationToken ct);
    Task<int> OrderCountAsync(bool async, CancellationToken ct);
    Task<List<Product>> ProductsPageAsync(int skip, int take, bool async, CancellationToken ct);
    Task<int> ProductCountAsync(bool async, CancellationToken ct);

    /// <summary>SELECT pg_sleep(seconds): time spent waiting in the database (seed 003).</summary>
    Task SleepAsync(double seconds, int timeoutSeconds, bool async, CancellationToken ct);
}
