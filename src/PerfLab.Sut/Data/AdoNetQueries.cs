using Npgsql;

namespace PerfLab.Sut.Data;

/// <summary>
/// The same reads through Npgsql's ADO.NET API (NpgsqlDataSource, NpgsqlCommand, NpgsqlDataReader), no EF Core: the
/// data layer that builds on net8.0, net9.0 and net10.0 alike. Blocking runs call the synchronous Open, ExecuteReader
/// and Read, so a thread waits on the socket as in EF Core's ToList.
/// </summary>
public sealed class AdoNetQueries(NpgsqlDataSource dataSource) : IAdventureWorksQueries
{
    public Task<List<SalesOrderHeader>> OrdersPageAsync(int skip, int take, bool async, CancellationToken ct) =>
        ReadAsync(AdoNetRows.OrdersPage, [Int(take), Int(skip)], AdoNetRows.ReadOrdersAsync, async, ct);

    public async Task<SalesOrderHeader?> OrderAsync(int id, bool async, CancellationToken ct) =>
        (await ReadAsync(AdoNetRows.Order, [Int(id)], AdoNetRows.ReadOrdersAsync, async, ct)).FirstOrDefault();

    public Task<List<int>> OrderIdsAsync(bool async, CancellationToken ct) =>
        ReadAsync(AdoNetRows.OrderIds, [], AdoNetRows.ReadIdsAsync, async, ct);

    public Task<int> OrderCountAsync(bool async, CancellationToken ct) => CountAsync(AdoNetRows.OrderCount, async, ct);

    public Task<List<Product>> ProductsPageAsync(int skip, int take, bool async, CancellationToken ct) =>
        ReadAsync(AdoNetRows.ProductsPage, [Int(take), Int(skip)], AdoNetRows.ReadProductsAsync, async, ct);

    public Task<int> ProductCountAsync(bool async, CancellationToken ct) => CountAsync(AdoNetRows.ProductCount, async, ct);

    public async Task SleepAsync(double seconds, int timeoutSeconds, bool async, CancellationToken ct)
    {
        var connection = async ? await dataSource.OpenConnectionAsync(ct) : dataSource.OpenConnection();
        try
        {
            using var command = new NpgsqlCommand(AdoNetRows.Sleep, connection) { CommandTimeout = timeoutSeconds };
            command.Parameters.Add(new NpgsqlParameter<double> { TypedValue = seconds });
            _ = async ? await command.ExecuteNonQueryAsync(ct) : command.ExecuteNonQuery();
        }
        finally
        {
            await CloseAsync(connection, async);
        }
    }

    private async Task<int> CountAsync(string sql, bool async, CancellationToken ct)
    {
        var connection = async ? await dataSource.OpenConnectionAsync(ct) : dataSource.OpenConnection();
        try
        {
            using var command = new NpgsqlCommand(sql, connection);
            return (int)(async ? await command.ExecuteScalarAsync(ct) : command.ExecuteScalar())!;
        }
        finally
        {
            await CloseAsync(connection, async);
        }
    }

    private async Task<T> ReadAsync<T>(string sql, NpgsqlParameter[] parameters,
        Func<NpgsqlDataReader, bool, CancellationToken, Task<T>> read, bool async, CancellationToken ct)
    {
        var connection = async ? await dataSource.OpenConnectionAsync(ct) : dataSource.OpenConnection();
        try
        {
            using var command = new NpgsqlCommand(sql, connection);
            command.Parameters.AddRange(parameters);
            var reader = async ? await command.ExecuteReaderAsync(ct) : command.ExecuteReader();
            try
            {
                return await read(reader, async, ct);
            }
            finally
            {
                if (async)
                {
                    await reader.DisposeAsync();
                }
                else
                {
                    reader.Dispose();
                }
            }
        }
        finally
        {
            await CloseAsync(connection, async);
        }
    }

    private static NpgsqlParameter<int> Int(int value) => new() { TypedValue = value };

    // Back to the pool, the way the query ran: a blocking run never goes through an async path.
    private static async ValueTask CloseAsync(NpgsqlConnection connection, bool async)
    {
        if (async)
        {
            await connection.DisposeAsync();
        }
        else
        {
            connection.Dispose();
        }
    }
}
