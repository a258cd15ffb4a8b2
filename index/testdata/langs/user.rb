# Accounts for shop customers.
require 'digest'

module Accounts
  # User is a registered customer.
  class User
    attr_reader :email

    def initialize(email, password)
      @email = email
      @digest = Digest::SHA256.hexdigest(password)
    end

    # Checks a password against the stored digest.
    def authenticate(password)
      Digest::SHA256.hexdigest(password) == @digest
    end

    def self.find_by_email(email)
      nil
    end
  end

  def self.normalize_email(email)
    email.strip.downcase
  end
end
