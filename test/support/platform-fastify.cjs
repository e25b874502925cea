process.env.HTTP_PLATFORM = 'fastify';
