process.env.HTTP_PLATFORM = 'express';
