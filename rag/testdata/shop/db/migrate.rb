# Schema changes for the shop database.
module Shop
  class Migrator
    # migrate applies every pending database migration in order.
    def migrate(conn)
      pending(conn).each { |m| conn.exec(File.read(m)) }
    end

    def pending(conn)
      Dir["db/migrations/*.sql"].sort
    end
  end
end
