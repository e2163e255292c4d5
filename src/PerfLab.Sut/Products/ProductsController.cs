using System.ComponentModel.DataAnnotations;
using Microsoft.AspNetCore.Mvc;
using PerfLab.Sut.Data;
using PerfLab.Sut.Logging;

namespace PerfLab.Sut.Products;

/// <summary>Seed 000's CMS products API (small rows, no navigation).</summary>
[ApiController]
[Route("customer/products")]
public sealed class ProductsController(IAdventureWorksQueries queries, DataAccess data, RequestLog log) : ControllerBase
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
        var products = await data.QueryAsync((awaited, ct) => queries.ProductsPageAsync((int)skip, pageSize, awaited, ct),
            HttpContext.RequestAborted);
        log.PageServed("products", pageNumber, pageSize, products.Count);
        return products;
    }

    [HttpGet("count")]
    public async Task<ActionResult<int>> GetProductCount()
    {
        var count = await data.QueryAsync(queries.ProductCountAsync, HttpContext.RequestAborted);
        log.CountServed("products", count);
        return count;
    }
}
