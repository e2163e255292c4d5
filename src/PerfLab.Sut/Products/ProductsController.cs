using System.ComponentModel.DataAnnotations;
using Microsoft.AspNetCore.Mvc;
using Microsoft.EntityFrameworkCore;
using PerfLab.Sut.Data;
using PerfLab.Sut.Logging;

namespace PerfLab.Sut.Products;

/// <summary>Seed 000's CMS products API (small rows, no navigation).</summary>
[ApiController]
[Route("customer/products")]
public sealed class ProductsController(AdventureWorks db, DataAccess data, RequestLog log) : ControllerBase
{
    [HttpGet]
    public async Task<ActionResult<List<Product>>> GetProducts(
        [Range(1, int.MaxValue)] int pageNumber = 1, [Range(1, 1000)] int pageSize = 100)
    {
        var skip = (long)(pageNumber - 1) * pageSize;
        if (skip > int.MaxValue)
        {
            return new List<Product>();
        }
        var query = db.Products.AsNoTracking()
            .OrderBy(x => x.ProductID)
            .Skip((int)skip)
            .Take(pageSize);
        var products = await data.QueryAsync(ct => query.ToListAsync(ct), query.ToList, HttpContext.RequestAborted);
        log.PageServed("products", pageNumber, pageSize, products.Count);
        return products;
    }

    [HttpGet("count")]
    public async Task<ActionResult<int>> GetProductCount()
    {
        var query = db.Products.AsNoTracking();
        var count = await data.QueryAsync(ct => query.CountAsync(ct), query.Count, HttpContext.RequestAborted);
        log.CountServed("products", count);
        return count;
    }
}
