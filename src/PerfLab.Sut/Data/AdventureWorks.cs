using Microsoft.EntityFrameworkCore;

namespace PerfLab.Sut.Data;

/// <summary>The tables of seed 000's CMS, mapped onto the schema perflab seeds (src/PerfLab/Database/schema.sql).</summary>
public sealed class AdventureWorks(DbContextOptions<AdventureWorks> options) : DbContext(options)
{
    public DbSet<SalesOrderHeader> SalesOrderHeaders => Set<SalesOrderHeader>();
    public DbSet<SalesOrderDetail> SalesOrderDetails => Set<SalesOrderDetail>();
    public DbSet<Product> Products => Set<Product>();

    protected override void ConfigureConventions(ModelConfigurationBuilder configurationBuilder)
    {
        // AdventureWorks' datetime columns carry no time zone.
        configurationBuilder.Properties<DateTime>().HaveColumnType("timestamp without time zone");
    }

    protected override void OnModelCreating(ModelBuilder modelBuilder)
    {
        modelBuilder.Entity<SalesOrderHeader>(order =>
        {
            order.ToTable("SalesOrderHeader", "Sales");
            order.HasKey(x => x.SalesOrderID);
            order.Property(x => x.Rowguid).HasColumnName("rowguid");
            order.Property(x => x.SalesOrderNumber).ValueGeneratedOnAddOrUpdate();
            order.Property(x => x.TotalDue).ValueGeneratedOnAddOrUpdate();
            order.HasMany(x => x.SalesOrderDetails)
                .WithOne(x => x.SalesOrderHeader)
                .HasForeignKey(x => x.SalesOrderID);
        });

        modelBuilder.Entity<SalesOrderDetail>(detail =>
        {
            detail.ToTable("SalesOrderDetail", "Sales");
            detail.HasKey(x => new { x.SalesOrderID, x.SalesOrderDetailID });
            detail.Property(x => x.Rowguid).HasColumnName("rowguid");
            detail.Property(x => x.LineTotal).ValueGeneratedOnAddOrUpdate();
        });

        modelBuilder.Entity<Product>(product =>
        {
            product.ToTable("Product", "Production");
            product.HasKey(x => x.ProductID);
            product.Property(x => x.Rowguid).HasColumnName("rowguid");
        });
    }
}
