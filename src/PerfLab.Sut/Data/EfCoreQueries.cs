using Microsoft.EntityFrameworkCore;

namespace PerfLab.Sut.Data;

/// <summary>Seed 000's queries, as its controllers wrote them: LINQ over the DbContext, AsNoTracking, Include.</summary>
public sealed class EfCoreQueries(AdventureWorks db) : IAdventureWorksQueries
{
    public async Task<List<SalesOrderHeader>> OrdersPageAsync(int skip, int take, bool async, CancellationToken ct)
    {
        var query = db.SalesOrderHeaders.AsNoTracking()
            .Include(x => x.SalesOrderDetails)
            .OrderBy(x => x.SalesOrderID)
            .Skip(skip)
            .Take(take);
        return async ? await query.ToListAsync(ct) : query.ToList();
    }

    public async Task<SalesOrderHeader?> OrderAsync(int id, bool async, CancellationToken ct)
    {
        var query = db.SalesOrderHeaders.AsNoTracking()
            .Include(x => x.SalesOrderDetails)
            .Where(x => x.SalesOrderID == id);
        return async ? await query.FirstOrDefaultAsync(ct) : query.FirstOrDefault();
    }

    public async Task<List<int>> OrderIdsAsync(bool async, CancellationToken ct)
    {
        var query = db.SalesOrderHeaders.AsNoTracking().OrderBy(x => x.SalesOrderID).Select(x => x.SalesOrderID);
        return async ? await query.ToListAsync(ct) : query.ToList();
    }

    public async Task<int> OrderCountAsync(bool async, CancellationToken ct)
    {
        var query = db.SalesOrderHeaders.AsNoTracking();
        return async ? await query.CountAsync(ct) : query.Count();
    }

    public async Task<List<Product>> ProductsPageAsync(int skip, int take, bool async, CancellationToken ct)
    {
        var query = db.Products.AsNoTracking()
            .OrderBy(x => x.ProductID)
            .Skip(skip)
            .Take(take);
        return async ? await query.ToListAsync(ct) : query.ToList();
    }

    public async Task<int> ProductCountAsync(bool async, CancellationToken ct)
    {
        var query = db.Products.AsNoTracking();
        return async ? await query.CountAsync(ct) : query.Count();
    }

    public async Task SleepAsync(double seconds, int timeoutSeconds, bool async, CancellationToken ct)
    {
        db.Database.SetCommandTimeout(timeoutSeconds);
        if (async)
        {
            await db.Database.ExecuteSqlRawAsync("SELECT pg_sleep({0})", [seconds], ct);
        }
        else
        {
            db.Database.ExecuteSqlRaw("SELECT pg_sleep({0})", seconds);
        }
    }
}
