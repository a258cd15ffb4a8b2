package secret

const apiKey = "hidden"
